/**
 * A circuit breaker for a service that may hang rather than refuse. Closed, calls go through.
 * A failed call opens it: from then on no call is made, so no caller waits out a timeout on a
 * service that is not answering. Every `probeIntervalMs` while open it makes one probe in the
 * background (half-open; calls are still not made meanwhile): the probe's success closes it,
 * its failure leaves it open for another interval.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  probeIntervalMs: number;
  /** Resolves when the service answers in time, rejects otherwise. */
  probe(): Promise<unknown>;
  /** Every change of state. */
  onChange?(state: BreakerState): void;
}

export interface CircuitBreaker {
  readonly state: BreakerState;
  /** Whether calls go through now. */
  closed(): boolean;
  /** A call failed: opens the breaker, unless it is open already. */
  trip(): void;
  /** Stops probing for good (the service is no longer used). */
  stop(): void;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  let state: BreakerState = 'closed';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function change(next: BreakerState): void {
    if (state === next) return;
    state = next;
    options.onChange?.(next);
  }
  function open(): void {
    change('open');
    if (stopped) return;
    // A process with nothing else to do may exit meanwhile.
    timer = setTimeout(probe, options.probeIntervalMs).unref();
  }
  function probe(): void {
    change('half-open');
    options.probe().then(
      () => change('closed'),
      () => open(),
    );
  }

  return {
    get state() {
      return state;
    },
    closed: () => state === 'closed',
    trip() {
      if (state === 'closed') open();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

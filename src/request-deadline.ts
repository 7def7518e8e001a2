/**
 * Every request's bound in time (REQUEST_TIMEOUT_MS), and the signal that stops its remaining
 * work: aborted when the deadline passes or when the client goes away (its connection closes
 * before the answer is complete). The app
 * answers 503 at the deadline; the signal reaches the request's statements through the request
 * context's database (src/context.ts), so nothing more is sent to the database for a request
 * nobody waits for.
 */

/** The error a stopped request's next statement fails with (masked as TIMEOUT, a 503). */
export class RequestStopped extends Error {
  constructor(why: 'deadline' | 'client gone') {
    super(why === 'deadline' ? 'the request took too long' : 'the client closed the connection');
    this.name = 'RequestStopped';
  }
}

/**
 * What a request's statements check before they are sent: an AbortSignal has this, but a
 * request needs no more of one, and an AbortController per request is not free.
 */
export interface WorkStop {
  /** Throws the RequestStopped, once the request is stopped. */
  throwIfAborted(): void;
}

export interface RequestDeadline {
  /** Stopped, with a RequestStopped as its reason, at the deadline or when the client goes. */
  readonly signal: WorkStop;
  /** Resolves when the deadline passes; never, once cleared. */
  readonly passed: Promise<void>;
  /** The request is answered: no deadline, and the client's leaving stops nothing any more. */
  clear(): void;
  /** The client has given up the answer (cancelled its body): the work stops, as if it left. */
  abandon(): void;
}

/** `clientGone`: whether the client has gone away, read when a statement asks. */
export function startDeadline(clientGone: () => boolean, timeoutMs: number): RequestDeadline {
  let stopped: RequestStopped | undefined;
  let answered = false;
  // The client's leaving is read when a statement asks, not listened for: a listener per
  // request cost more than the checks it saves.
  const stop = (gone = clientGone()) =>
    (stopped ??= new RequestStopped(gone ? 'client gone' : 'deadline'));
  const signal: WorkStop = {
    throwIfAborted() {
      if (stopped === undefined && !answered && clientGone()) stop();
      if (stopped !== undefined) throw stopped;
    },
  };
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      stop();
      resolve();
    }, timeoutMs);
  });
  return {
    signal,
    passed,
    clear() {
      answered = true;
      clearTimeout(timer);
    },
    abandon() {
      stop(true);
      clearTimeout(timer);
    },
  };
}

/**
 * The signal of the request being served, by the request yoga and the REST engine hand to the
 * context factory: both receive the same Request object the app routed.
 */
const workSignals = new WeakMap<Request, WorkStop>();

export function bindWorkSignal(request: Request, signal: WorkStop): void {
  workSignals.set(request, signal);
}

/** The request's signal; a request the app did not route (none in the service) never stops. */
export function workSignalOf(request: Request): WorkStop | undefined {
  return workSignals.get(request);
}

/**
 * Requests whose answer in parts is bound by the deadline to its last part: incremental
 * delivery (@defer, @stream). A subscription's stream is an answer in parts too, but lives as
 * long as its subscriber: the deadline ends with its first part.
 */
const partsUnderDeadline = new WeakSet<Request>();

export function holdDeadlineForParts(request: Request): void {
  partsUnderDeadline.add(request);
}

export function deadlineHoldsParts(request: Request): boolean {
  return partsUnderDeadline.has(request);
}

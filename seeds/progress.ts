/**
 * Seeding progress: a bar on a terminal, a plain line every few seconds (and at each phase)
 * when the output is a file or a pipe, nothing at all when progress is off.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** Starts a phase that counts `total` units (products, jobs). */
  phase(name: string, total: number, unit: string): void;
  update(done: number): void;
  /** A one-off message between phases. */
  note(message: string): void;
  /** A detail for the record (a slow step's duration): shown as a line, never over a bar. */
  detail(message: string): void;
  stop(): void;
}

const SILENT: Progress = { phase() {}, update() {}, note() {}, detail() {}, stop() {} };

const LINE_INTERVAL_MS = 5_000;

/** `label` starts every line: the command the progress is of. */
export function createProgress(
  stream: NodeJS.WritableStream | false | undefined,
  label = 'seed',
): Progress {
  if (!stream) return SILENT;
  return (stream as { isTTY?: boolean }).isTTY
    ? new BarProgress(stream, label)
    : new LineProgress(stream, label);
}

class BarProgress implements Progress {
  private readonly bar: cliProgress.SingleBar;
  private running = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly label: string,
  ) {
    this.bar = new cliProgress.SingleBar(
      {
        stream: stream as NodeJS.WritableStream & { isTTY: boolean },
        format: `${label} {phase} [{bar}] {percentage}% {value}/{total} {unit} | {duration_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  phase(name: string, total: number, unit: string): void {
    this.stop();
    this.bar.start(total, 0, { phase: name.padEnd(18), unit });
    this.running = true;
  }

  update(done: number): void {
    if (this.running) this.bar.update(done);
  }

  note(message: string): void {
    this.stop();
    this.stream.write(`${this.label} ${message}\n`);
  }

  detail(): void {}

  stop(): void {
    if (!this.running) return;
    this.bar.stop();
    this.running = false;
  }
}

class LineProgress implements Progress {
  private name = '';
  private total = 0;
  private unit = '';
  private done = 0;
  private phaseStarted = 0;
  private lastLine = 0;
  private readonly started = performance.now();

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly label: string,
  ) {}

  phase(name: string, total: number, unit: string): void {
    this.finishPhase();
    this.name = name;
    this.total = total;
    this.unit = unit;
    this.done = 0;
    this.phaseStarted = performance.now();
    this.lastLine = this.phaseStarted;
    this.write(`${name}: ${total} ${unit}`);
  }

  update(done: number): void {
    this.done = done;
    const now = performance.now();
    if (now - this.lastLine < LINE_INTERVAL_MS) return;
    this.lastLine = now;
    const percent = this.total > 0 ? Math.floor((done / this.total) * 100) : 100;
    this.write(`${this.name}: ${done}/${this.total} ${this.unit} (${percent} %)`);
  }

  note(message: string): void {
    this.write(message);
  }

  detail(message: string): void {
    this.write(`  ${message}`);
  }

  stop(): void {
    this.finishPhase();
  }

  private finishPhase(): void {
    if (!this.name) return;
    const seconds = ((performance.now() - this.phaseStarted) / 1000).toFixed(1);
    this.write(`${this.name}: done, ${this.done} ${this.unit} in ${seconds} s`);
    this.name = '';
  }

  private write(message: string): void {
    const elapsed = ((performance.now() - this.started) / 1000).toFixed(1).padStart(6);
    this.stream.write(`${this.label} ${elapsed} s  ${message}\n`);
  }
}

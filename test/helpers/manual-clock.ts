/** A millisecond clock a test moves by hand, for limiters that take `now`. */
export function manualClock() {
  let now = 1_000_000;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/**
 * The server's clock-driven transitions (an operation starting, finishing, an instance becoming
 * RUNNABLE). Nothing runs on timers: every request, and every snapshot, first applies the
 * transitions that are due, in the order they were due. State therefore changes exactly when a
 * caller could observe it, and a stopped server leaves nothing scheduled behind.
 */
export class Timeline {
  private readonly events: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;

  constructor(readonly now: () => number = Date.now) {}

  schedule(at: number, run: () => void) {
    this.events.push({ at, seq: this.seq++, run });
  }

  advance() {
    const now = this.now();
    for (;;) {
      let next = -1;
      for (let i = 0; i < this.events.length; i++) {
        const event = this.events[i]!;
        if (event.at > now) continue;
        const best = next >= 0 ? this.events[next]! : undefined;
        if (!best || event.at < best.at || (event.at === best.at && event.seq < best.seq)) next = i;
      }
      if (next < 0) return;
      const [event] = this.events.splice(next, 1);
      event!.run();
    }
  }
}

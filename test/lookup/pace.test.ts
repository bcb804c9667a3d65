/** How many requests go at once (src/lookup/pace.ts): what the figure does after what a batch met. */
import { fitting, observe, type Pace } from '../../src/lookup/pace';

const CAP = 300;
const seen = (sent: number, more: Partial<Parameters<typeof observe>[1]> = {}) => ({
  sent,
  alongside: 0,
  ms: 3000,
  refused: 0,
  failed: 0,
  lost: false,
  retryAfterUntil: 0,
  ...more,
});

describe('the pace', () => {
  it('grows by three shares with each full, clean batch (fourfold a round), never past the cap', () => {
    let pace: Pace = { size: 50 };
    pace = observe(pace, seen(25), 25, CAP);
    expect(pace.size).toBe(125);
    for (let i = 0; i < 20; i++) pace = observe(pace, seen(25), 25, CAP);
    expect(pace.size).toBe(CAP);
  });

  it('stays put after a batch that was not full: the service was not asked for more', () => {
    expect(observe({ size: 50 }, seen(10), 25, CAP).size).toBe(50);
  });

  it("after a 429 takes what the service took at once (its batch and the run's others, less the refused), keeps its latest Retry-After, then holds", () => {
    const after = observe({ size: 50 }, seen(25, { refused: 5, retryAfterUntil: 9_000 }), 25, CAP);
    expect(after).toMatchObject({ size: 20, reason: 'rate_limited', notBefore: 9_000 });
    expect(observe(after, seen(20), 20, CAP).size).toBe(20);
    // Four slices of 13 at once against a limit of 25: the one that met 27 refusals saw 39 others beside its 13.
    expect(observe({ size: 52 }, seen(13, { alongside: 39, refused: 27 }), 13, CAP).size).toBe(25);
  });

  it('after lost connections, grows back one request a clean batch', () => {
    const after = observe({ size: 100 }, seen(40, { lost: true }), 40, CAP);
    expect(observe(after, seen(40), 40, CAP).size).toBe(81);
  });

  it("one profile's own 500s are that profile's: the pace holds; many 500s or a lost batch halve the batch's part", () => {
    expect(observe({ size: 100 }, seen(100, { failed: 3 }), 100, CAP).size).toBe(CAP);
    expect(observe({ size: 100 }, seen(100, { failed: 25 }), 100, CAP)).toMatchObject({
      size: 50,
      reason: 'connection_failures',
    });
    expect(observe({ size: 100 }, seen(40, { lost: true }), 100, CAP).size).toBe(80);
  });

  it('never falls below one request', () => {
    expect(observe({ size: 2 }, seen(2, { refused: 2 }), 2, CAP).size).toBe(1);
  });
});

describe('what fits in the time left', () => {
  it('assumes 4 s a round of 10 requests before any batch was timed', () => {
    expect(fitting({ size: 50 }, 25_000)).toBe(60);
    expect(fitting({ size: 50 }, 3_000)).toBe(0);
  });

  it('uses the last batch once one was timed: as many again a round of its time', () => {
    expect(fitting({ size: 50, lastMs: 1_000 }, 25_000)).toBe(250);
    expect(fitting({ size: 50, lastMs: 5_000, lastSent: 60 }, 25_000)).toBe(300);
    expect(fitting({ size: 50, lastMs: 5_000, lastSent: 60 }, 4_000)).toBe(0);
  });
});

/**
 * The download estimate the Model panel shows before a Hub download (src/ui/help/download-estimate.ts): the time is
 * size × 8 / speed, the speed the browser's `navigator.connection.downlink` when it gives a usable one, Chromium's
 * capped 10 Mbit/s read as "10 or more" (an upper bound), else the stated assumption. Expected times are worked out by
 * hand from the sizes and speeds.
 */
import { describe, expect, it } from 'vitest';
import { ASSUMED_DOWNLINK_MBPS, downloadEstimate, durationText, estimateText, reportedDownlink } from '../../../src/ui/help/download-estimate.ts';

describe('reportedDownlink', () => {
  it.each([
    [{ connection: { downlink: 5.5 } }, 5.5],
    [{ connection: { downlink: 10 } }, 10],
    [{ connection: { downlink: 0 } }, null],
    [{ connection: { downlink: -1 } }, null],
    [{ connection: { downlink: Number.NaN } }, null],
    [{ connection: { downlink: Number.POSITIVE_INFINITY } }, null],
    [{ connection: { downlink: '10' } }, null],
    [{ connection: null }, null],
    [{}, null],
    [undefined, null],
  ])('%j → %s', (nav, expected) => {
    expect(reportedDownlink(nav)).toBe(expected);
  });
});

describe('downloadEstimate', () => {
  it('1.52 GB at a reported 5 Mbit/s: 2432 s', () => {
    expect(downloadEstimate(1_520_000_000, 5)).toEqual({ seconds: 2432, mbps: 5, basis: 'reported' });
  });

  it("Chromium's capped 10 Mbit/s is a lower bound on the speed: 1216 s at most", () => {
    expect(downloadEstimate(1_520_000_000, 10)).toEqual({ seconds: 1216, mbps: 10, basis: 'at-least' });
  });

  it('no usable speed: the assumed one', () => {
    for (const speed of [null, 0, -3, Number.NaN]) {
      const e = downloadEstimate(1_000_000_000, speed);
      expect(e.basis).toBe('assumed');
      expect(e.mbps).toBe(ASSUMED_DOWNLINK_MBPS);
      expect(e.seconds).toBeCloseTo(8000 / ASSUMED_DOWNLINK_MBPS, 9);
    }
  });
});

describe('durationText', () => {
  it.each([
    [0, 'under a minute'],
    [59, 'under a minute'],
    [60, 'about 1 min'],
    [90, 'about 2 min'],
    [2432, 'about 41 min'],
    [3599, 'about 1 h'],
    [4200, 'about 1 h 10 min'],
    [36_000, 'about 10 h'],
  ])('%d s → %s', (seconds, text) => {
    expect(durationText(seconds)).toBe(text);
  });
});

describe('estimateText', () => {
  it('names where the speed came from', () => {
    expect(estimateText({ seconds: 2432, mbps: 5, basis: 'reported' })).toBe('about 41 min at 5 Mbit/s, the speed this browser reports for your connection');
    expect(estimateText({ seconds: 1216, mbps: 10, basis: 'at-least' })).toBe('at most 20 min (this browser reports 10 Mbit/s or more for your connection, the most it ever reports)');
    expect(estimateText({ seconds: 30, mbps: 10, basis: 'at-least' })).toMatch(/^under a minute \(/);
    expect(estimateText({ seconds: 608, mbps: 20, basis: 'assumed' })).toBe("about 10 min at 20 Mbit/s (assumed: this browser does not report your connection's speed)");
  });
});

import { costTicks, countTicks, flatRange, legendValue, showPoints, timeRange } from './chart';
import { formatCost } from './format';

describe('chart', () => {
  const day = Date.parse('2026-11-27T00:00:00Z');

  it('ranges one day of data over that day, not three years on', () => {
    expect(timeRange([day], 86_400_000)).toEqual([(day - 43_200_000) / 1000, (day + 43_200_000) / 1000]);
    expect(timeRange([day, day + 300_000], 300_000)).toEqual([(day - 150_000) / 1000, (day + 450_000) / 1000]);
    expect(timeRange([], 1000)).toBeNull();
  });

  it('labels a cost axis of small amounts as dollars that tell the ticks apart', () => {
    expect(costTicks([0, 0.0002, 0.0004, 0.0006])).toEqual(['$0', '$0.0002', '$0.0004', '$0.0006']);
    expect(costTicks([0, 0.5, 1, 1.5])).toEqual(['$0', '$0.50', '$1.00', '$1.50']);
    expect(costTicks([10, 20])).toEqual(['$10.00', '$20.00']);
    expect(costTicks([0.00003])).toEqual(['$0.000030']);
    expect(new Set(costTicks([0.00001, 0.00002, 0.00003])).size).toBe(3);
  });

  it("ranges a flat zero (nothing spent) over the unit's own small range, and leaves the rest to uPlot", () => {
    expect(flatRange(0, 0, [0, 1])).toEqual([0, 1]);
    expect(flatRange(null, null, [0, 10])).toEqual([0, 10]);
    expect(flatRange(0, 0.0003, [0, 1])).toBeNull();
  });

  it('labels counts with thousands and only the decimals the ticks need', () => {
    expect(countTicks([0, 1000, 2000])).toEqual(['0', '1,000', '2,000']);
    expect(countTicks([0, 0.5, 1])).toEqual(['0.0', '0.5', '1.0']);
  });

  it("leaves the legend value empty until a point is hovered, then writes it in the chart's format", () => {
    const value = legendValue(formatCost);
    expect([value(null, null), value(0.00012, null), value(0.00012, 3), value(null, 3)]).toEqual(['', '', '$0.00012', '–']);
  });

  it('marks the points of a series with one value, however many buckets it spans', () => {
    expect(showPoints([null, null, 4, null], 4, 300, 10)).toBe(true);
    expect(showPoints([4], 1, 300, 10)).toBe(true);
    expect(
      showPoints(
        Array.from({ length: 288 }, (_, i) => i),
        288,
        300,
        10,
      ),
    ).toBe(false);
    expect(showPoints([1, 2, 3], 3, 300, 10)).toBe(true);
  });
});

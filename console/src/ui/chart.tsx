import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * A line chart of the current period against the previous one (uPlot). uPlot sizes and places its
 * elements through element.style (CSSOM), which the page's style-src 'self' does not govern; its
 * stylesheet is bundled with ours.
 */
export function PeriodChart(props: {
  title: string;
  times: number[];
  current: Array<number | null>;
  previous: Array<number | null> | null;
  format: (v: number | null) => string;
  /** A rate between 0 and 1: the axis runs from 0 % to 100 % whatever the data. */
  rate?: boolean;
}): JSX.Element {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const width = Math.max(280, Math.min(el.clientWidth || 600, 900));
    const series: uPlot.Series[] = [
      {},
      // Points are drawn too: a period with one bucket of data has no line to draw between buckets.
      {
        label: 'This period',
        stroke: '#1f5fbf',
        width: 2,
        points: { show: true, size: 5, fill: '#1f5fbf' },
        value: (_u, v) => props.format(v),
      },
    ];
    const data: uPlot.AlignedData = [props.times, props.current];
    if (props.previous) {
      series.push({
        label: 'Previous period',
        stroke: '#8a8f98',
        dash: [6, 4],
        width: 1.5,
        value: (_u, v) => props.format(v),
      });
      (data as Array<Array<number | null>>).push(props.previous);
    }
    const plot = new uPlot(
      {
        width,
        height: 220,
        series,
        ...(props.rate ? { scales: { y: { range: [0, 1] as uPlot.Range.MinMax } } } : {}),
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => props.format(t)), size: 70 }],
      },
      data,
      el,
    );
    return () => plot.destroy();
  }, [props.times, props.current, props.previous, props.rate]);
  return <figure class="chart" ref={holder} aria-label={props.title} />;
}

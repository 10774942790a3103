import uPlot from './vendor/uplot/uPlot.esm.js'
import { h } from './dom.js'

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563', '#65a30d', '#ea580c']
export const color = (i) => PALETTE[i % PALETTE.length]

/**
 * A time-series chart: `x` in Unix seconds, one line per series (null = gap). uPlot draws tens of
 * thousands of points without effort, so no downsampling happens here.
 */
export function lineChart({ title, x, series, percent = false, width, height = 220, empty = 'No data in this range.' }) {
  const box = h('figure', { class: 'chart' }, h('figcaption', {}, title))
  if (!x.length || !series.length) {
    box.append(h('p', { class: 'empty' }, empty))
    return box
  }
  // A line needs two neighbouring values: a series with few values (a lone bucket) is drawn as points.
  const sparse = (values) => values.filter((v) => v !== null && v !== undefined).length < 60
  const fmt = (v) => (v === null || v === undefined ? '–' : percent ? `${(v * 100).toFixed(1)}%` : v.toLocaleString('en-US', { maximumFractionDigits: 4 }))
  const opts = {
    width: width ?? Math.max(320, Math.min(560, window.innerWidth / 2 - 48)),
    height,
    // One instant alone would stretch the time axis over years: an hour either side of it instead.
    scales: {
      x: x.length === 1 || x.every((t) => t === x[0]) ? { time: true, range: [x[0] - 3600, x[0] + 3600] } : { time: true },
      y: percent ? { range: [0, 1] } : { auto: true },
    },
    axes: [{}, { values: (_u, ticks) => ticks.map(fmt), size: 60 }],
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        stroke: s.color ?? color(i),
        width: 2,
        spanGaps: false,
        value: (_u, v) => fmt(v),
        points: { show: x.length < 60 || sparse(s.values) },
      })),
    ],
  }
  // uPlot needs the element in the document to measure; draw on the next frame.
  requestAnimationFrame(() => new uPlot(opts, [x, ...series.map((s) => s.values)], box))
  return box
}

// Package benchreport turns the results of `mmgate bench gateway` and
// `mmgate bench transport` into a report directory: report.json (the data,
// snake_case keys, lists never null) and index.html, one self-contained page
// that needs no network to be viewed.
//
// The page's charts are inline SVG drawn here in Go, so they show without
// JavaScript; its CSS is inline and it refers to no other file. The page
// carries one small inline script that changes nothing visible: it records
// script errors (window "error" and "unhandledrejection" events) and, once
// the page has loaded, counts the chart marks the browser actually laid out
// (points and bars with a finite data-v value and a non-empty box inside the
// chart's viewBox) and writes the counts on <body> as data-* attributes:
//
//	data-check="done", data-errors="0", data-error-messages="",
//	data-charts="N", data-marks="M", data-chart-marks="id:n id:n …"
//
// and on each <svg class="chart"> data-marks-drawn beside the
// data-marks-expected written by the renderer. Tests load the page in a
// headless browser (see package browser) and read these attributes from the
// dumped DOM.
//
// Gateway reports hold one benchgw.Report per concurrency level and draw
// latency and TTFT percentiles, throughput, the tensor transport mix and the
// per-stage mean times by concurrency. Transport reports hold
// transportbench.Result rows and draw the median and p90 time by tensor size
// for each path (logarithmic axes) and the ratio inline-tcp / shm.
//
// Everything here is a pure function of its input; nothing is shared between
// calls, so every function is safe for concurrent use.
package benchreport

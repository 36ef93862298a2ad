/** The report's whole stylesheet, inlined so report.html needs nothing but its artifacts/ folder. */
export const REPORT_STYLES = `
:root { color-scheme: light; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; --soft: #f6f8fa; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 10px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: 8px 0; padding: 12px 14px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 480px; overflow: auto; }
pre.text { font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #fff; }
.muted { color: var(--muted); }
.warn { color: var(--warn); }
.bad-text { color: var(--bad); }
.unpriced { color: var(--warn); font-style: italic; }
.subtitle { color: var(--muted); margin: 0 0 16px; }
.banner { padding: 12px 16px; border-radius: 8px; border: 1px solid; margin: 16px 0; }
.banner.done { background: #dafbe1; border-color: #4ac26b; }
.banner.stopped { background: #fff8c5; border-color: #d4a72c; }
.banner.failed { background: #ffebe9; border-color: #ff8182; }
.banner p { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 10px; margin: 16px 0; }
.fact { background: var(--soft); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.fact .label { display: block; font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.fact .value { font-size: 17px; font-weight: 600; }
table.grid { width: 100%; border-collapse: collapse; font-size: 14px; }
table.grid th, table.grid td { padding: 7px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
table.grid thead th { background: var(--soft); font-weight: 600; white-space: nowrap; }
table.grid tbody th { font-weight: 500; }
table.grid .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.grid tfoot th, table.grid tfoot td { font-weight: 700; border-top: 2px solid var(--ink); border-bottom: none; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; border: 1px solid; }
.badge.ok { color: var(--ok); border-color: #4ac26b; background: #dafbe1; }
.badge.bad { color: var(--bad); border-color: #ff8182; background: #ffebe9; }
.badge.muted { color: var(--muted); border-color: var(--line); background: var(--soft); }
.meta { font-weight: 400; font-size: 13px; color: var(--muted); }
section.step { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 12px 0; }
.thumbs { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 14px; margin: 12px 0; }
figure.tile { margin: 0; padding: 8px; border: 1px solid var(--line); border-radius: 8px; background: var(--soft); scroll-margin-top: 16px; }
figure.tile:target { outline: 3px solid var(--accent); }
figure.tile a { display: block; }
figure.tile img { display: block; width: 100%; aspect-ratio: 1; object-fit: contain; border-radius: 4px; background: #fff; }
.clips { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 14px; margin: 12px 0; }
figure.clip audio { display: block; width: 100%; }
figcaption { font-size: 13px; margin-top: 6px; overflow-wrap: anywhere; line-height: 1.35; }
figcaption .detail { display: block; color: var(--ink); }
figcaption .media-facts { display: block; color: var(--muted); font-size: 12px; }
a.chip { display: inline-block; padding: 1px 8px; border: 1px solid var(--line); border-radius: 999px; background: var(--soft); font-size: 13px; white-space: nowrap; max-width: 100%; overflow: hidden; text-overflow: ellipsis; vertical-align: middle; }
.markdown > :first-child { margin-top: 0; }
.markdown > :last-child { margin-bottom: 0; }
.markdown p, .markdown ul, .markdown ol { margin: 6px 0; }
.markdown pre { max-height: 320px; }
.markdown code { background: var(--soft); padding: 0 4px; border-radius: 4px; }
.markdown pre code { background: none; padding: 0; }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { border: 1px solid var(--line); padding: 3px 8px; }
.output { margin-top: 4px; }
ol.values-list { margin: 0; padding-left: 22px; }
ol.values-list li { margin: 2px 0; }
table.values-table { margin: 4px 0; }
table.values-table td, table.values-table th { padding: 5px 8px; }
ul.tags { display: flex; flex-wrap: wrap; gap: 4px 6px; list-style: none; margin: 0; padding: 0; }
ul.tags li { padding: 0 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); font-size: 14px; }
.value.short { white-space: nowrap; }
#step-table tbody th { white-space: nowrap; }
table.items td:nth-child(2) { min-width: 220px; }
.depth-1 { padding-left: 18px; }
.depth-2 { padding-left: 36px; }
.depth-3 { padding-left: 54px; }
.item-label { margin: 0 0 8px; color: var(--muted); font-style: italic; }
.description { margin: 0 0 4px; font-size: 16px; }
h3.sub { font-size: 15px; margin: 20px 0 8px; }
.banner .cause { font-weight: 400; }
.banner.waiting { background: #ddf4ff; border-color: #54aeff; }
nav.pager { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 10px 0; font-size: 14px; }
table.items td { vertical-align: top; }
dl.row-value { display: grid; grid-template-columns: max-content 1fr; gap: 0 10px; margin: 0; font-size: 13px; }
dl.row-value dt { color: var(--muted); }
dl.row-value dd { margin: 0; overflow-wrap: anywhere; }
.error { background: #ffebe9; border: 1px solid #ff8182; border-radius: 6px; padding: 8px 12px; margin: 8px 0; overflow-wrap: anywhere; white-space: pre-wrap; }
ul.errors, ul.notes { margin: 8px 0; padding-left: 20px; }
ul.notes { color: var(--muted); font-size: 14px; }
details { margin: 8px 0; }
summary { cursor: pointer; color: var(--accent); }
dl.values { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 0; }
dl.values dt { font-weight: 600; }
dl.values dd { margin: 0; min-width: 0; }
.command { display: inline-block; margin-top: 6px; padding: 4px 10px; background: #fff; border: 1px solid var(--line); border-radius: 6px; user-select: all; }
footer { margin-top: 48px; color: var(--muted); font-size: 13px; }
`;

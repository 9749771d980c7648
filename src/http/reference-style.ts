/** The stylesheet of the `/docs` pages (http/api-reference.ts): system fonts, readable on a phone, dark when the system is. */
export const REFERENCE_STYLESHEET = `:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --line: #d9dee4; --bg: #fff; --code: #f3f5f7; --link: #0b5cad; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #a0a8b3; --line: #343a42; --bg: #15181c; --code: #22272e; --link: #6cb2ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: .6rem 1rem; border-bottom: 1px solid var(--line); font-weight: 600; }
header a { color: inherit; text-decoration: none; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; overflow-wrap: anywhere; }
a { color: var(--link); }
h1 { font-size: 1.5rem; margin: .5rem 0; } h1 small { font-size: .9rem; color: var(--muted); font-weight: 400; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
code { font: .9em ui-monospace, Menlo, Consolas, monospace; background: var(--code); padding: 0 .25em; border-radius: 3px; }
ul { padding-left: 1.1rem; }
ul.operations, ul.parameters, ul.responses, ul.schemas { list-style: none; padding: 0; margin: 0; }
ul.operations li { border-bottom: 1px solid var(--line); }
a.operation { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: baseline; padding: .5rem 0; text-decoration: none; color: inherit; }
a.operation .summary { flex-basis: 100%; color: var(--muted); }
@media (min-width: 48rem) { a.operation .summary { flex-basis: auto; margin-left: auto; } }
.method { display: inline-block; min-width: 4.2em; text-align: center; font: 600 .75rem/1.6 ui-monospace, Menlo, Consolas, monospace; border-radius: 3px; color: #fff; background: #57606a; }
.method.get { background: #1f6feb; } .method.post { background: #1a7f37; } .method.put, .method.patch { background: #9a6700; } .method.delete { background: #cf222e; }
nav.tags { display: flex; flex-wrap: wrap; gap: .25rem .75rem; margin: 1rem 0; }
.required { font-size: .75rem; color: #cf222e; text-transform: uppercase; letter-spacing: .03em; }
.type, .in, .meta, .crumb, .limits { color: var(--muted); font-size: .9rem; }
ul.properties, ol.options { border-left: 2px solid var(--line); margin: .25rem 0; padding-left: .9rem; list-style: none; }
ul.properties > li, ul.parameters > li, ul.responses > li { padding: .35rem 0; }
.schema p, li p { margin: .2rem 0; }
.status { font-weight: 700; } .status.s2 { color: #1a7f37; } .status.s4, .status.s5 { color: #cf222e; }
.media { margin: .3rem 0; }
`;

/**
 * The documentation's runnable shell blocks, and the bash script that runs a page's blocks in order
 * (docs/README.md, "How the docs are tested"). A fenced `sh` or `bash` block is runnable when the
 * line before its fence is one of:
 * - `<!-- run -->`: run it; it must exit 0.
 * - `<!-- run: background -->`: a command that runs until stopped (`svc listen`): started in the
 *   background, waited for until its output shows its first `# →` line, stopped (SIGTERM) after the
 *   page's last block once it has shown the rest.
 * - `<!-- run: server -->`: the server's start (`VAR=value npm start`): not run; the test starts its
 *   own server with those variables.
 * In a block, `# → text` is what its output shows: the pieces of `text` between `…` must appear in
 * the output in that order (spaces collapsed).
 */

export type BlockKind = 'run' | 'background' | 'server';

export interface Block {
  kind: BlockKind;
  code: string;
  /** 1-based line of the block's first line of code in its page. */
  line: number;
  /** One entry per `# →` line: the pieces that must appear in order. */
  expectations: string[][];
}

const MARKERS: Record<string, BlockKind> = {
  '<!-- run -->': 'run',
  '<!-- run: background -->': 'background',
  '<!-- run: server -->': 'server',
};

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The `# →` lines of a block, each cut at `…` into the pieces to find. */
export function expectationsOf(code: string): string[][] {
  return code
    .split('\n')
    .map((line) => /^\s*# → (.*)$/.exec(line)?.[1])
    .filter((text): text is string => text !== undefined)
    .map((text) =>
      text
        .split('…')
        .map(collapse)
        .filter((piece) => piece !== ''),
    );
}

/** Every runnable block of a Markdown page, in order. */
export function runnableBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length - 1; i++) {
    const kind = MARKERS[lines[i]!.trim()];
    if (!kind) continue;
    if (!/^```(sh|bash)\s*$/.test(lines[i + 1]!))
      throw new Error(`line ${i + 1}: ${lines[i]} is not followed by a \`\`\`sh fence`);
    const end = lines.findIndex((line, n) => n > i + 1 && line.startsWith('```'));
    if (end < 0) throw new Error(`line ${i + 2}: unclosed fence`);
    const code = lines.slice(i + 2, end).join('\n');
    blocks.push({ kind, code, line: i + 3, expectations: expectationsOf(code) });
    i = end;
  }
  return blocks;
}

/** True when every piece appears in `output`, in order, spaces collapsed. */
export function shows(output: string, pieces: string[]): boolean {
  const text = collapse(output);
  let from = 0;
  for (const piece of pieces) {
    const at = text.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}

/** The `VAR=value` assignments before `npm start` in a server block. */
export function serverEnvironment(block: Block): Record<string, string> {
  const command = block.code.split('\n').find((line) => /\bnpm start\b/.test(line));
  if (!command) throw new Error(`line ${block.line}: a server block runs npm start`);
  const env: Record<string, string> = {};
  for (const word of command.slice(0, command.indexOf('npm start')).trim().split(/\s+/).filter(Boolean)) {
    const match = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(word);
    if (!match) throw new Error(`line ${block.line}: "${word}" is not VAR=value`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

/** A line-wise extended regular expression for grep that finds the pieces in order on one line. */
function lineRegex(pieces: string[]): string {
  const escaped = pieces.map((piece) => piece.replace(/[.[\]{}()*+?^$|\\]/g, '\\$&').replace(/ /g, ' +'));
  return escaped.join('.*');
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

const PRELUDE = `set -euo pipefail
BACKGROUND=()
stop_background() { for pid in "\${BACKGROUND[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done; }
trap stop_background EXIT
# Waits up to 30 s for a line of file $1 matching the extended regular expression $2.
wait_for() {
  for _ in $(seq 300); do grep -Eq -- "$2" "$1" && return 0; sleep 0.1; done
  echo "waited 30 s for /$2/ in $1:" >&2; cat "$1" >&2; return 1
}
`;

/** One bash script that runs `blocks` in order in one shell, each block's output in `outDir/<n>.out`. */
export function pageScript(blocks: Block[], outDir: string): string {
  const parts = [PRELUDE];
  blocks.forEach((block, n) => {
    const out = quote(`${outDir}/${n}.out`);
    parts.push(`echo ${n} > ${quote(`${outDir}/current`)}`);
    if (block.kind === 'run') parts.push(`{\n${block.code}\n} > ${out} 2>&1`);
    if (block.kind === 'background') {
      // Its own process group (setsid), so that stopping it stops npx and node beneath it too.
      parts.push(`setsid bash -c ${quote(block.code)} > ${out} 2>&1 & BACKGROUND+=($!)`);
      const [first] = block.expectations;
      if (first) parts.push(`wait_for ${out} ${quote(lineRegex(first))}`);
    }
  });
  blocks.forEach((block, n) => {
    if (block.kind !== 'background') return;
    for (const pieces of block.expectations.slice(1))
      parts.push(`wait_for ${quote(`${outDir}/${n}.out`)} ${quote(lineRegex(pieces))}`);
  });
  parts.push(`echo done > ${quote(`${outDir}/current`)}`);
  return `${parts.join('\n')}\n`;
}

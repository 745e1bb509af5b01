// The short answer's case table (`<div class="case-table">`, book/theme/layout.css), at 390 px and
// 1280 px: it is there, with every row of the Markdown table; no row and no cell reaches past the
// text column, and its box never needs sideways scrolling; every cell is laid out (not hidden).
// At 390 px the rows stack as cards, and each cell after the first is labelled with its column's
// header, so a label that no longer matches the header fails too. At 1280x800 the first screen
// holds the one-sentence answer (the chapter's first bold text), then the whole table: its last
// row ends within the first 800 px. At both widths no code span in a cell wraps except after
// `.`, `/`, `(` or `,` (the chapter's <wbr>): never inside an identifier, nor at a space.

import { widths } from './layout.mjs';

/// Runs in the page: the table's facts at the current viewport width.
function inspect() {
  const table = document.querySelector('main .case-table table');
  if (!table) return { problems: ['no .case-table table in <main>'], rows: 0 };
  const problems = [];
  const viewport = document.documentElement.clientWidth;
  const column = document.querySelector('main').getBoundingClientRect();
  const limit = Math.min(viewport, column.right) + 1; // sub-pixel rounding
  const wrapper = table.closest('.table-wrapper') ?? table.parentElement;
  if (wrapper.scrollWidth > wrapper.clientWidth + 1) {
    problems.push(`the table scrolls sideways (${wrapper.scrollWidth} px in ${wrapper.clientWidth} px)`);
  }
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  const rows = [...table.querySelectorAll('tbody tr')];
  rows.forEach((row, index) => {
    const name = `row ${index + 1} (${row.cells[0]?.textContent.trim().slice(0, 40)})`;
    const box = row.getBoundingClientRect();
    if (box.height === 0 || getComputedStyle(row).display === 'none') problems.push(`${name} is not shown`);
    if (box.right > limit) problems.push(`${name} reaches past the text column (${Math.round(box.right)} > ${Math.round(limit)} px)`);
    [...row.cells].forEach((cell, cellIndex) => {
      const cellBox = cell.getBoundingClientRect();
      if (cellBox.height === 0 || cellBox.width === 0) problems.push(`${name}, cell ${cellIndex + 1}, is not laid out`);
      if (cellBox.right > limit) problems.push(`${name}, cell ${cellIndex + 1}, reaches past the text column`);
      if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`${name}, cell ${cellIndex + 1}, overflows its box`);
    });
  });
  const stacked = rows.length > 0 && getComputedStyle(rows[0]).display === 'block';
  const labels = stacked
    ? rows.flatMap((row) => [...row.cells].slice(1).map((cell, i) => ({
        label: getComputedStyle(cell, '::before').content.replace(/^"|"$/g, ''),
        header: headers[i + 1],
      })))
    : [];
  // The first screen: the bold answer, then the whole table, above the fold.
  const fold = window.innerHeight;
  const answer = document.querySelector('main strong');
  const firstScreen = {
    answerBottom: answer ? Math.round(answer.getBoundingClientRect().bottom) : null,
    tableTop: Math.round(table.getBoundingClientRect().top),
    lastRowBottom: rows.length ? Math.round(rows[rows.length - 1].getBoundingClientRect().bottom) : null,
    rowsShown: rows.filter((row) => row.getBoundingClientRect().bottom <= fold).length,
    fold,
  };
  // A code span that wraps: each character's line box, across the text nodes a <wbr> splits it
  // into; a character on a lower line than the one before it starts a new line, and the last
  // character before the break (spaces aside) must be `.`, `/`, `(` or `,`.
  for (const code of table.querySelectorAll('td code')) {
    const characters = [];
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) characters.push({ node, i, char: node.data[i] });
    }
    const range = document.createRange();
    const top = ({ node, i }) => {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      return rects.length ? rects[rects.length - 1].top : null;
    };
    let lineTop = null;
    characters.forEach((character, index) => {
      if (/\s/.test(character.char)) return; // a space at a line's end has no box of its own
      const at = top(character);
      if (at === null) return;
      if (lineTop !== null && at > lineTop + 1) {
        const before = characters.slice(0, index).map((c) => c.char).join('').trimEnd();
        const after = characters.slice(index).map((c) => c.char).join('');
        if (!/[./(,]$/.test(before)) problems.push(`code "${code.textContent.slice(0, 40)}" wraps after "${before.slice(-12)}", before "${after.slice(0, 12)}" (only after . / ( , is allowed)`);
      }
      lineTop = at;
    });
  }
  return { problems, rows: rows.length, stacked, labels, headers, firstScreen };
}

// A page whose case table is too wide for a phone and has a stale label, so that a check that
// passes the book has shown it can fail.
const defects = `<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width">
<style>body { margin: 0; } main { padding: 0 10px; } .table-wrapper { overflow-x: auto; }
@media (max-width: 700px) { .case-table tr, .case-table td, .case-table tbody, .case-table table { display: block; }
.case-table thead { display: none; } .case-table td:nth-child(2)::before { content: "Stale: "; } }
.case-table td { white-space: nowrap; }</style></head>
<body><main><p><strong>The answer.</strong></p><div class="case-table"><div class="table-wrapper"><table>
<thead><tr><th>Case</th><th>The canceller</th></tr></thead>
<tbody><tr><td>a row</td><td>${'a cell that does not wrap at all '.repeat(6)}</td></tr>
<tr><td>narrow</td><td><div style="width: 6em; white-space: normal"><code style="overflow-wrap: anywhere">handle.cancel(reason_that_is_long)</code> <code>{ signal }</code></div></td></tr>
<tr><td>tall</td><td><div style="height: 900px">a row below the fold</div></td></tr></tbody>
</table></div></div></main></body></html>`;

/// Fails unless the check reports the fixture's defects: the overflow, the stale label and the
/// code that wraps inside an identifier at 390 px; at 1280x800, the row below the fold.
export async function caseTableSelfTest(browser, fail) {
  const problems = [];
  for (const width of widths) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    await page.setContent(defects, { waitUntil: 'load' });
    const found = await page.evaluate(inspect);
    await context.close();
    problems.push(...found.problems, ...mislabelled(found), ...firstScreenProblems(found, width));
  }
  const expected = [/reaches past the text column|scrolls sideways|overflows/, /label "Stale: "/,
    /wraps after "[^"]*[^./(,]", before/, /last row is not on the first screen/];
  const missed = expected.filter((pattern) => !problems.some((problem) => pattern.test(problem)));
  for (const pattern of missed) fail(`case-table self-test: the check did not report ${pattern}`);
  console.log(`case-table self-test: ${expected.length - missed.length} of ${expected.length} planted defects reported`);
}

function mislabelled({ labels }) {
  return labels
    .filter(({ label, header }) => label !== `${header}: `)
    .map(({ label, header }) => `a cell's label "${label}" does not name its column "${header}"`);
}

/// At 1280x800: the bold one-sentence answer, then the table's last row, within the first screen.
function firstScreenProblems({ firstScreen: screen }, width) {
  if (width !== widths[1]) return [];
  const problems = [];
  if (screen.answerBottom === null || screen.answerBottom > screen.fold) problems.push(`the bold one-sentence answer is not on the first screen (ends at ${screen.answerBottom} px of ${screen.fold})`);
  if (screen.answerBottom !== null && screen.answerBottom > screen.tableTop) problems.push('the table comes before the one-sentence answer');
  if (screen.lastRowBottom === null || screen.lastRowBottom > screen.fold) problems.push(`the table's last row is not on the first screen (ends at ${screen.lastRowBottom} px of ${screen.fold}; ${screen.rowsShown} rows fit)`);
  return problems;
}

/// Checks the case table of `name` (the short answer) at every width.
export async function checkCaseTable(browser, base, name, fail) {
  for (const width of widths) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    await page.goto(base + name, { waitUntil: 'load' });
    const found = await page.evaluate(inspect);
    await context.close();
    const problems = [...found.problems, ...mislabelled(found), ...firstScreenProblems(found, width)];
    if (found.rows < 8) problems.push(`only ${found.rows} rows (revision x transport x kind of request: 8 expected)`);
    if (width === widths[0] && !found.stacked) problems.push('the rows do not stack as cards on a phone');
    if (width === widths[1] && found.stacked) problems.push('the rows stack on a laptop');
    for (const problem of problems) fail(`${name} case table at ${width} px: ${problem}`);
    const screen = found.firstScreen;
    console.log(`case table at ${width} px: ${found.rows} rows, ${found.stacked ? 'stacked' : 'a table'}, ${screen.rowsShown} on the first screen (answer ends at ${screen.answerBottom} px, last row at ${screen.lastRowBottom} px), ${problems.length} problems`);
  }
}

// Opens the SDK matrix chapter (sdk-matrix.html) of the built book in headless Chromium in a
// 1280 x 800 window and checks its at-a-glance grid as a reader sees it: the grid is there, with one
// glyph cell per SDK x way of stopping x revision x transport of interop/expected.json, each with a
// tooltip; every glyph in it is explained by the legend; the grid fits without scrolling; the
// detailed rows are folded (closed <details>); and neither the grid nor the opened detailed tables
// make the page scroll sideways (wide tables scroll inside their own box).
//
// Usage: node matrix-check.mjs BOOK_HTML_DIR EXPECTED_JSON
import { readFile } from 'node:fs/promises';
import { failures, launchBrowser } from './session.mjs';
import { serveUnder } from './site.mjs';

const [root, expectedPath] = process.argv.slice(2);
if (!root || !expectedPath) {
  console.error('usage: node matrix-check.mjs BOOK_HTML_DIR EXPECTED_JSON');
  process.exit(2);
}
const WIDTH = 1280;
const HEIGHT = 800;
// The grid's columns: revision x transport.
const COLUMNS = 4;

const expected = JSON.parse(await readFile(expectedPath, 'utf8'));
// The SDKs' grid only: the agent frameworks (`"framework": true`) have a chapter of their own.
const sdks = Object.values(expected.sdks).filter((sdk) => !sdk.framework);
const wantedRows = sdks.reduce((sum, sdk) => sum + sdk.scenarios.length, 0);
const wantedSdks = sdks.length;

const { list: failed, fail } = failures('sdk-matrix.html: ');
const { server, base } = await serveUnder(root, '/', (url) => fail(`request outside the site: ${url}`));


const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  page.on('request', (req) => {
    if (!req.url().startsWith(base) && !req.url().startsWith('data:')) fail(`request leaves the book: ${req.url()}`);
  });
  const response = await page.goto(base + 'sdk-matrix.html', { waitUntil: 'load' });
  if (!response.ok()) fail(`HTTP ${response.status()}`);

  const seen = await page.evaluate(() => {
    const grids = [...document.querySelectorAll('table.sdk-grid')];
    const grid = grids[0];
    const details = [...document.querySelectorAll('details')].filter((d) => d.querySelector('table'));
    const page = { details: details.length, openDetails: details.filter((d) => d.open).length,
      pageWidth: document.scrollingElement.scrollWidth, viewWidth: document.scrollingElement.clientWidth };
    if (!grid) return { grids: 0, ...page };
    const rows = [...grid.querySelectorAll('tbody tr')];
    const groups = rows.filter((row) => row.querySelector('th[scope="rowgroup"]'));
    const bodyRows = rows.filter((row) => !groups.includes(row));
    const cells = [...grid.querySelectorAll('td.sdk-grid-cell')];
    const legend = document.querySelector('ul.sdk-grid-legend');
    const legendGlyphs = legend ? [...legend.querySelectorAll('li > strong')].map((s) => s.textContent.trim().split(/\s+/)[0]) : [];
    const wrapper = grid.parentElement;
    const gridBox = grid.getBoundingClientRect();
    return {
      ...page,
      grids: grids.length,
      groups: groups.length,
      rows: bodyRows.length,
      cellsPerRow: [...new Set(bodyRows.map((row) => row.querySelectorAll('td.sdk-grid-cell').length))],
      cells: cells.length,
      glyphs: [...new Set(cells.map((c) => c.textContent.trim()))],
      untitled: cells.filter((c) => !c.title).length,
      hidden: cells.filter((c) => c.getBoundingClientRect().width === 0).length,
      legend: Boolean(legend),
      legendGlyphs,
      gridFits: grid.scrollWidth <= wrapper.clientWidth && gridBox.right <= window.innerWidth,
      gridWidth: Math.round(gridBox.width),
      gridFirst: (() => {
        // The grid comes before the detailed tables (a reader sees it first).
        const first = document.querySelector('main table');
        return first === grid;
      })(),
    };
  });
  console.log(`sdk-matrix.html at ${WIDTH} px: ${JSON.stringify(seen)}`);
  if (seen.grids !== 1) fail(`expected one table.sdk-grid, found ${seen.grids}`);
  else {
    if (!seen.gridFirst) fail('the grid is not the first table of the chapter');
    if (seen.groups !== wantedSdks) fail(`the grid has ${seen.groups} SDK groups, interop/expected.json has ${wantedSdks} SDKs`);
    if (seen.rows !== wantedRows) fail(`the grid has ${seen.rows} rows, interop/expected.json has ${wantedRows} ways of stopping`);
    if (seen.cellsPerRow.length !== 1 || seen.cellsPerRow[0] !== COLUMNS) fail(`grid rows have ${seen.cellsPerRow.join('/')} glyph cells, not ${COLUMNS}`);
    if (seen.cells !== wantedRows * COLUMNS) fail(`the grid has ${seen.cells} glyph cells, expected ${wantedRows * COLUMNS}`);
    if (seen.untitled > 0) fail(`${seen.untitled} grid cells have no tooltip (title)`);
    if (seen.hidden > 0) fail(`${seen.hidden} grid cells are not rendered`);
    if (!seen.legend) fail('no legend (ul.sdk-grid-legend) under the grid');
    const unexplained = seen.glyphs.filter((g) => g.length === 0 || !seen.legendGlyphs.includes(g));
    if (unexplained.length > 0) fail(`glyphs the legend does not explain: ${JSON.stringify(unexplained)}`);
    if (!seen.gridFits) fail(`the grid (${seen.gridWidth} px) does not fit its column at ${WIDTH} px`);
  }
  if (seen.details === 0) fail('no folded detailed rows (<details> with a table)');
  if (seen.openDetails > 0) fail(`${seen.openDetails} detailed tables are open by default`);
  if (seen.pageWidth > seen.viewWidth) fail(`the page scrolls sideways: ${seen.pageWidth} px wide in a ${seen.viewWidth} px view`);

  // Open every folded table: the rows appear, and wide tables scroll in their own box, not the page.
  const opened = await page.evaluate(() => {
    const details = [...document.querySelectorAll('details')].filter((d) => d.querySelector('table'));
    details.forEach((d) => { d.open = true; });
    const tables = details.map((d) => d.querySelector('table'));
    return {
      visibleRows: tables.map((t) => [...t.querySelectorAll('tbody tr')].filter((r) => r.getBoundingClientRect().height > 0).length),
      unboxed: tables.filter((t) => {
        const box = t.parentElement;
        const scrolls = getComputedStyle(box).overflowX === 'auto' || getComputedStyle(box).overflowX === 'scroll';
        return t.scrollWidth > box.clientWidth + 1 && !scrolls;
      }).length,
      pageWidth: document.scrollingElement.scrollWidth,
      viewWidth: document.scrollingElement.clientWidth,
    };
  });
  if (opened.visibleRows.some((n) => n === 0)) fail(`an opened detailed table shows no rows: ${JSON.stringify(opened.visibleRows)}`);
  if (opened.unboxed > 0) fail(`${opened.unboxed} detailed tables are wider than the text column and do not scroll in their own box`);
  if (opened.pageWidth > opened.viewWidth) fail(`with the detailed rows open the page scrolls sideways (${opened.pageWidth} px in a ${opened.viewWidth} px view)`);
  console.log(`sdk-matrix.html detailed rows opened: ${JSON.stringify(opened)}`);
} finally {
  await browser.close();
  server.close();
}
console.log(`matrix check: ${failed.length} failed`);
process.exit(failed.length === 0 ? 0 : 1);

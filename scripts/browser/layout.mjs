// Page-width checks: what a reader on a phone (390 px) and on a laptop (1280 px) sees.
// - Prose never needs horizontal scrolling: no element outside a box that scrolls on its own
//   (code, a table wrapper, a transcript) reaches past the right edge of the viewport. mdBook's
//   body clips horizontal overflow, so text that does not fit would be cut off, not scrollable.
// - A table wider than the text column scrolls inside its own box (mdBook's `.table-wrapper`),
//   and that box stays within the column.
// - A sequence diagram is never wider than the column and keeps its aspect ratio.

export const widths = [390, 1280];

/// Runs in the page: returns a list of problems (strings) at the current viewport width.
function inspect() {
  const problems = [];
  const viewport = document.documentElement.clientWidth;
  const main = document.querySelector('main');
  if (!main) return ['no <main> element'];
  const describe = (el) => {
    const text = (el.textContent || el.getAttribute('src') || '').replace(/\s+/g, ' ').trim();
    return `<${el.tagName.toLowerCase()}${el.className ? ` class="${el.className}"` : ''}> "${text.slice(0, 60)}"`;
  };
  // A box that scrolls horizontally on its own keeps what it holds from widening the page.
  const scrollsItself = (el) => {
    const style = getComputedStyle(el);
    return ['auto', 'scroll'].includes(style.overflowX);
  };
  const insideScroller = (el) => {
    for (let p = el.parentElement; p && p !== main; p = p.parentElement) if (scrollsItself(p)) return true;
    return false;
  };
  const tolerance = 1; // sub-pixel rounding
  let overflowing = 0;
  for (const el of main.querySelectorAll('*')) {
    if (insideScroller(el)) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) continue; // collapsed <details> content, hidden
    // The box itself, or text overflowing a box that does not scroll (a <pre> that does not wrap).
    const right = scrollsItself(el) ? rect.right : rect.left + Math.max(rect.width, el.scrollWidth);
    if (right > viewport + tolerance && overflowing++ < 3) {
      problems.push(`prose wider than the page (right edge ${Math.round(right)} px > ${viewport} px): ${describe(el)}`);
    }
  }
  if (overflowing > 3) problems.push(`... and ${overflowing - 3} more elements wider than the page`);

  const column = main.getBoundingClientRect();
  for (const table of main.querySelectorAll('table')) {
    const wrapper = table.parentElement;
    if (!wrapper.classList.contains('table-wrapper') || !scrollsItself(wrapper)) {
      problems.push(`table not inside a horizontally scrolling .table-wrapper: ${describe(table)}`);
      continue;
    }
    const box = wrapper.getBoundingClientRect();
    if (box.right > column.right + tolerance) {
      problems.push(`table box reaches past the text column (${Math.round(box.right)} > ${Math.round(column.right)} px): ${describe(table)}`);
    }
    // A table wider than its box must be reachable by scrolling the box, not cut off.
    if (table.scrollWidth > wrapper.clientWidth + tolerance && wrapper.scrollWidth <= wrapper.clientWidth + tolerance) {
      problems.push(`wide table cannot be scrolled: ${describe(table)}`);
    }
  }

  for (const img of main.querySelectorAll('img')) {
    if (!img.complete || img.naturalWidth === 0) {
      problems.push(`image did not load: ${describe(img)}`);
      continue;
    }
    const rect = img.getBoundingClientRect();
    if (rect.width === 0) continue; // inside a closed <details>
    const container = img.parentElement.getBoundingClientRect();
    if (rect.right > container.right + tolerance || rect.right > viewport + tolerance) {
      problems.push(`diagram wider than its column (${Math.round(rect.width)} px in ${Math.round(container.width)} px): ${describe(img)}`);
    }
    const drawn = rect.width / rect.height;
    const natural = img.naturalWidth / img.naturalHeight;
    if (Math.abs(drawn - natural) / natural > 0.02) {
      problems.push(`diagram distorted (aspect ${drawn.toFixed(3)} drawn, ${natural.toFixed(3)} natural): ${describe(img)}`);
    }
  }
  return problems;
}

// A page with one of each defect the check must find, so a check that finds nothing proves
// something: a <pre> that does not scroll, a bare table, a fixed-width and a distorted diagram.
const svg = 'data:image/svg+xml;base64,' + Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="760" height="356"><rect width="760" height="356" fill="#eee"/></svg>').toString('base64');
const defects = `<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width">
<style>body { margin: 0; overflow-x: hidden; } main { padding: 0 10px; } pre { overflow-x: visible; }</style></head>
<body><main>
<p>Prose that fits.</p>
<pre>${'→ req 0 initialize 2026-07-28 client=rmcp/3.11.0 caps={} '.repeat(3)}</pre>
<table><tr>${'<td>a cell that is quite wide</td>'.repeat(8)}</tr></table>
<p><img src="${svg}" style="width: 760px"></p>
<p><img src="${svg}" style="width: 300px; height: 300px"></p>
</main></body></html>`;
const expected = [/prose wider than the page.*<pre>/, /table not inside/, /diagram wider than its column/, /diagram distorted/];

/// Fails unless the check reports each defect of the fixture page at 390 px.
export async function selfTest(browser, fail) {
  const context = await browser.newContext({ viewport: { width: widths[0], height: 800 } });
  const page = await context.newPage();
  await page.setContent(defects, { waitUntil: 'load' });
  const found = await page.evaluate(inspect);
  await context.close();
  const missed = expected.filter((pattern) => !found.some((problem) => pattern.test(problem)));
  for (const pattern of missed) fail(`layout self-test: the check did not report ${pattern} on the defects page`);
  console.log(`layout self-test: ${expected.length - missed.length} of ${expected.length} planted defects reported`);
}

/// Opens every page at every width; `fail` records a problem. Returns the pages with a table
/// wider than a phone screen, so the caller can tell the table check saw one.
export async function checkWidths(browser, base, pages, fail) {
  let wideTables = 0;
  for (const width of widths) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    let problems = 0;
    for (const name of pages) {
      await page.goto(base + name, { waitUntil: 'load' });
      // Open every <details>, so transcripts and diagrams are laid out as a reader would see them.
      await page.evaluate(() => document.querySelectorAll('main details').forEach((d) => { d.open = true; }));
      for (const problem of await page.evaluate(inspect)) {
        problems++;
        fail(`${name} at ${width} px: ${problem}`);
      }
      if (width === widths[0]) {
        wideTables += await page.evaluate(() =>
          [...document.querySelectorAll('main .table-wrapper')].filter((w) => w.scrollWidth > w.clientWidth + 1).length);
      }
    }
    console.log(`layout at ${width} px: ${pages.length} pages, ${problems} problems`);
    await context.close();
  }
  return wideTables;
}

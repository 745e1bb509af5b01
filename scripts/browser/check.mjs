// Opens the built book in headless Chromium, as a reader would, and checks what they see:
// the book is served under a project sub-path, as GitHub Pages serves it; every page loads with
// no console error and no request leaving the site; the chapter pages show snippet outputs, wire
// transcripts and sequence diagrams produced by the verifier; the search finds
// "notifications/cancelled" and its first result opens; the 404 page (site.mjs) works at any depth;
// the print view has every chapter; every chapter links to its source; and at 390 px and
// 1280 px (layout.mjs) prose never scrolls sideways, wide tables scroll in their own box and
// diagrams scale; and the short answer's case table (case-table.mjs) shows every row without
// sideways scrolling at both widths, as cards on a phone. A page mdBook writes for
// `[output.html.redirect]` (an old address) is not a chapter: it must point at a page the site
// has, and is not opened (it has no favicon link, so Chromium would ask the server's root).
//
// Usage: node check.mjs BOOK_HTML_DIR [SITE_PATH]   (SITE_PATH like /REPO/, default /)
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { caseTableSelfTest, checkCaseTable } from './case-table.mjs';
import { chapterFiles, checkLayout, checkSearch, openSite, visitChapters } from './session.mjs';
import { checkSite, missingPage } from './site.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The 404 check asks for a missing page on purpose; Chromium logs that answer as an error.
const site = await openSite('check.mjs', 'BOOK_HTML_DIR', {
  ignoreConsole: (msg) => msg.text().includes('status of 404') && msg.location().url.endsWith(missingPage),
});
const { root, base, browser, page, fail } = site;
try {
  const pages = [];
  for (const name of (await chapterFiles(root))) {
    const refresh = /<meta http-equiv="refresh" content="0; URL=([^"#]+)/.exec(await readFile(resolve(root, name), 'utf8'));
    if (!refresh) { pages.push(name); continue; }
    if (!existsSync(resolve(root, refresh[1]))) fail(`${name}: redirects to ${refresh[1]}, which the site does not have`);
    console.log(`${name}: redirects to ${refresh[1]}`);
  }
  if (pages.length === 0) fail('no chapter pages found');
  let outputs = 0, transcripts = 0, diagrams = 0;
  const transcriptPages = [];
  await visitChapters(site, pages, async (name) => {
    const seen = await page.evaluate(() => ({
      outputs: document.querySelectorAll('.mdbook-snippets-stdout').length,
      transcripts: [...document.querySelectorAll('details > summary')]
        .filter((s) => s.textContent.toLowerCase().includes('transcript')).length,
      diagrams: [...document.querySelectorAll('img')]
        .filter((i) => i.src.startsWith('data:image/svg+xml') && i.complete && i.naturalWidth > 0).length,
    }));
    if (seen.transcripts > 0) transcriptPages.push(name);
    outputs += seen.outputs; transcripts += seen.transcripts; diagrams += seen.diagrams;
    console.log(`${name}: ${seen.outputs} outputs, ${seen.transcripts} transcripts, ${seen.diagrams} diagrams`);
  });
  if (outputs === 0) fail('no page shows a snippet output (.mdbook-snippets-stdout)');
  if (transcripts === 0) fail('no page shows a wire transcript');
  if (diagrams === 0) fail('no page shows a rendered sequence diagram');

  // A transcript must open on a click and show the wire messages.
  site.at('transcript');
  const withTranscript = transcriptPages[0];
  if (withTranscript) {
    await page.goto(base + withTranscript);
    const summary = page.locator('details > summary', { hasText: /transcript/i }).first();
    await summary.click();
    const wire = await summary.locator('xpath=..').locator('pre').first();
    if (!(await wire.isVisible())) fail(`${withTranscript}: transcript does not open on click`);
    else if (!/tools\/call|initialize|server\/discover/.test(await wire.innerText())) fail(`${withTranscript}: transcript shows no MCP message`);
  }

  await checkSearch(site, 'notifications/cancelled');

  site.at('site');
  await checkSite(page, base, pages.filter((name) => name !== 'index.html'), repoRoot, fail);

  await checkLayout(site, pages);

  site.at('case table');
  await caseTableSelfTest(browser, fail);
  await checkCaseTable(browser, base, 'short-answer.html', fail);
} finally {
  await site.close();
}
site.exit('browser check');

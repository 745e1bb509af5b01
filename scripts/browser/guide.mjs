// Opens the built guide (guide/, the book for mdbook-snippets users) in headless Chromium, served
// under the sub-path the Pages workflow publishes it at (/REPO/guide/), and checks what a reader
// sees: every page loads with no console error and no request leaving the site; the pages show
// the verified outputs of their snippets (the runs of the CLI among them), and the lines a `sh`
// snippet hides (`!!!example NAME`, which copies an example book) stay hidden until the reader
// asks for them; an artifact a snippet left shows under its output and opens; the search
// finds `--partition` and its first result opens; the print view has every chapter; every chapter
// links to its own source under guide/src/; and at 390 px and 1280 px (layout.mjs) prose never
// scrolls sideways.
//
// Usage: node guide.mjs GUIDE_HTML_DIR [SITE_PATH]   (SITE_PATH like /REPO/guide/, default /)
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chapterFiles, checkLayout, checkSearch, openSite, visitChapters } from './session.mjs';
import { checkEditLinks, checkPrint } from './site.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const site = await openSite('guide.mjs', 'GUIDE_HTML_DIR');
const { root, base, page, fail } = site;
try {
  const pages = await chapterFiles(root);
  let outputs = 0, shellOutputs = 0;
  await visitChapters(site, pages, async (name) => {
    const seen = await page.evaluate(() => {
      const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
      const shell = [...document.querySelectorAll('pre > code.language-sh')];
      return {
        outputs: document.querySelectorAll('.mdbook-snippets-stdout').length,
        // A shell block followed (past whitespace) by the verifier's output.
        shellOutputs: shell.filter((code) => code.parentElement.nextElementSibling?.classList.contains('mdbook-snippets-output')).length,
        // Hidden lines are mdBook's `.boring` spans; none may show, and none may still carry the prefix.
        shownHidden: shell.flatMap((code) => [...code.querySelectorAll('.boring')]).filter(visible).length,
        prefixes: shell.filter((code) => code.innerText.includes('!!!')).length,
        copyLines: shell.filter((code) => /^example [\w-]+$/m.test(code.innerText)).length,
      };
    });
    outputs += seen.outputs; shellOutputs += seen.shellOutputs;
    if (seen.shownHidden > 0) fail(`${name}: ${seen.shownHidden} hidden lines of shell snippets are visible`);
    if (seen.prefixes > 0) fail(`${name}: ${seen.prefixes} shell snippets show the hidden-line prefix !!!`);
    if (seen.copyLines > 0) fail(`${name}: ${seen.copyLines} shell snippets show their \`example NAME\` line`);
    console.log(`${name}: ${seen.outputs} outputs, ${seen.shellOutputs} under shell snippets`);
  });
  if (outputs < 20) fail(`only ${outputs} snippet outputs in the whole guide (expected at least 20)`);
  if (shellOutputs < 10) fail(`only ${shellOutputs} outputs under shell snippets (runs of the CLI; expected at least 10)`);

  // A hidden line shows when the reader asks: mdBook's eye button on the block.
  site.at('first-book.html');
  await page.goto(base + 'first-book.html');
  const block = page.locator('pre:has(code.language-sh)').first();
  const toggle = block.locator('button.fa-eye, button[title*="hidden"], button[aria-label*="hidden"]').first();
  if (await toggle.count() === 0) {
    fail('first-book.html: the first shell snippet has no button to show its hidden lines');
  } else {
    // mdBook shows a block's buttons while the pointer is over it.
    await block.hover();
    await toggle.click();
    if (!/example first-book/.test(await block.innerText())) fail('first-book.html: the hidden `example first-book` line does not show on request');
  }

  // A snippet of the rendering page leaves `10-a_note.txt`: the page shows it under the
  // snippet's output, folded, and it opens on a click.
  site.at('rendering.html');
  await page.goto(base + 'rendering.html');
  const note = page.locator('.mdbook-snippets-output details > summary', { hasText: 'a note' });
  if (await note.count() === 0) {
    fail('rendering.html: no "a note" artifact under a snippet');
  } else {
    await note.first().click();
    const text = note.first().locator('xpath=..').locator('pre').first();
    if (!(await text.isVisible()) || !/MDBOOK_SNIPPETS_ARTIFACTS/.test(await text.innerText())) fail('rendering.html: the "a note" artifact does not open on a click');
  }

  await checkSearch(site, 'partition');

  site.at('print.html');
  await checkPrint(page, base, fail, { headings: pages.length - 1, outputs: outputs - 1 });

  // Every chapter's "Suggest an edit" link names its source file under guide/src/.
  site.at('edit links');
  await checkEditLinks(page, base, pages.filter((name) => name !== 'index.html'), repoRoot, fail, { under: 'guide/src/' });

  await checkLayout(site, pages);
} finally {
  await site.close();
}
site.exit('guide browser check');

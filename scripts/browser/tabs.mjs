// Opens the language-tabs fixture book (tests/browser-fixtures/tabs, built by browser-check.sh)
// in headless Chromium and checks the tabs as a reader uses them: each marked group is one tab
// set with accessible roles; clicking a tab shows only its panel, with the code's buttons and its
// outputs working inside; the arrow keys move between tabs without turning the page; the choice
// survives a reload, holds on another page and in another window, and falls back to the first tab
// where a group lacks the language; the page still works when storage is refused; unmarked blocks
// stay as they are; a search hit in a hidden panel, and a failed snippet, show their panel; with
// JavaScript off, and in the print view, every block shows one after another; the tabs' text
// stays readable in each of mdBook's themes; and the pages fit a phone's width (layout.mjs).
//
// Usage: node tabs.mjs FIXTURE_HTML_DIR
import { checkWidths } from './layout.mjs';
import { serveUnder } from './site.mjs';
import { launchBrowser } from './session.mjs';

const root = process.argv[2];
if (!root) {
  console.error('usage: node tabs.mjs FIXTURE_HTML_DIR');
  process.exit(2);
}
const failures = [];
const fail = (what) => { failures.push(what); console.error(`FAIL ${what}`); };
const check = (ok, what) => { if (!ok) fail(what); };
const { server, base } = await serveUnder(root, '/tabs-fixture/', (url) => fail(`request outside the site: ${url}`));

// What the fixture's first page holds, in page order.
const firstSet = ['rust', 'python', 'typescript'];
const secondSet = ['rust', 'typescript'];
const themes = ['light', 'rust', 'coal', 'navy', 'ayu'];

/// Runs in the page: every tab set as [{ language, label, selected, visible, ...roles }].
function tabSets() {
  const visible = (el) => el.getBoundingClientRect().height > 0 && getComputedStyle(el).visibility !== 'hidden';
  return [...document.querySelectorAll('[role=tablist]')].map((list) => [...list.querySelectorAll('[role=tab]')].map((tab) => {
    const panel = document.getElementById(tab.getAttribute('aria-controls'));
    return {
      language: tab.dataset.language,
      label: tab.textContent,
      selected: tab.getAttribute('aria-selected') === 'true',
      focusable: tab.tabIndex === 0,
      roles: Boolean(panel) && panel.getAttribute('role') === 'tabpanel' && panel.getAttribute('aria-labelledby') === tab.id,
      visible: Boolean(panel) && visible(panel),
      text: panel ? panel.innerText : '',
    };
  }));
}

/// The language each tab set shows, failing unless exactly that tab is selected and only its
/// panel is visible.
async function shown(page, where) {
  const sets = await page.evaluate(tabSets);
  return sets.map((tabs, index) => {
    const selected = tabs.filter((tab) => tab.selected);
    const visible = tabs.filter((tab) => tab.visible);
    if (selected.length !== 1 || visible.length !== 1 || selected[0].language !== visible[0].language || !selected[0].focusable) {
      fail(`${where}: tab set ${index + 1}: selected ${selected.map((t) => t.language)}, visible ${visible.map((t) => t.language)}`);
    }
    return selected[0]?.language;
  });
}

function watch(page, name) {
  page.on('console', (msg) => { if (msg.type() === 'error') fail(`${name}: console error: ${msg.text()}`); });
  page.on('pageerror', (err) => fail(`${name}: page error: ${err.message}`));
  page.on('request', (req) => { if (!req.url().startsWith(base) && !req.url().startsWith('data:')) fail(`${name}: request leaves the book: ${req.url()}`); });
}

const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(5000);
  const page = await context.newPage();
  watch(page, 'tabs');
  await page.goto(base + 'cancel.html', { waitUntil: 'load' });

  // The two marked groups, and nothing else (the unmarked Rust + TOML pair stays as it is).
  const sets = await page.evaluate(tabSets);
  check(JSON.stringify(sets.map((tabs) => tabs.map((tab) => tab.language))) === JSON.stringify([firstSet, secondSet]),
    `cancel.html: tab sets ${JSON.stringify(sets.map((tabs) => tabs.map((tab) => tab.language)))}, expected ${JSON.stringify([firstSet, secondSet])}`);
  check(sets.flat().every((tab) => tab.roles), 'cancel.html: a tab without its tabpanel (aria-controls / aria-labelledby)');
  check(sets[0]?.map((tab) => tab.label).join() === 'Rust,Python,TypeScript', `cancel.html: tab labels ${sets[0]?.map((tab) => tab.label)}`);
  const outsideSets = await page.evaluate(() => [...document.querySelectorAll('main pre > code')]
    .filter((code) => !code.closest('.snippet-tabs-panel')).map((code) => code.className.split(' ')[0]));
  check(outsideSets.join() === 'language-rust,language-toml', `cancel.html: blocks outside tab sets ${outsideSets}, expected the unmarked rust and toml`);
  // No choice stored yet: each set shows its first tab.
  check((await shown(page, 'first visit')).join() === 'rust,rust', 'first visit: not the first tabs');

  // The Rust panel holds its code, output, transcript and diagram, and mdBook's buttons work there.
  const rustPanel = page.locator('[role=tabpanel][data-language=rust]').first();
  check(await rustPanel.locator('.mdbook-snippets-output .mdbook-snippets-stdout').isVisible(), 'rust panel: no visible output');
  check(await rustPanel.locator('details > summary', { hasText: /transcript/i }).count() === 1, 'rust panel: no transcript');
  check(await rustPanel.locator('img[src^="data:image/svg+xml"]').count() === 1, 'rust panel: no diagram');
  check(await rustPanel.locator('code.hljs.language-rust .hljs-keyword').count() > 0, 'rust panel: code not highlighted');
  const boring = rustPanel.locator('code .boring').first();
  check(!(await boring.isVisible()), 'rust panel: hidden lines shown before the eye button is clicked');
  // mdBook shows a code block's buttons while the pointer is over it.
  await rustPanel.locator('pre').first().hover();
  await rustPanel.locator('button[title="Show hidden lines"]').click();
  check(await boring.isVisible(), 'rust panel: the "Show hidden lines" button does not show them');
  await rustPanel.locator('.clip-button').first().click();
  check(/tooltipped/.test(await rustPanel.locator('.clip-button').first().getAttribute('class')), 'rust panel: the copy button does not answer a click');

  // Clicking each tab shows only its panel, in every set (TypeScript, then Python: the second set
  // has no Python and falls back to Rust).
  for (const [language, expected] of [['typescript', 'typescript,typescript'], ['python', 'python,rust'], ['rust', 'rust,rust']]) {
    await page.locator(`[role=tab][data-language=${language}]`).first().click();
    const now = await shown(page, `after clicking ${language}`);
    check(now.join() === expected, `after clicking ${language}: sets show ${now}, expected ${expected}`);
    const text = (await page.evaluate(tabSets))[0].find((tab) => tab.visible)?.text ?? '';
    if (language !== 'rust') check(text.includes(`${language}: request is in flight`), `after clicking ${language}: its panel lacks its code and output`);
  }

  // Keyboard: ArrowRight from Rust selects Python, End TypeScript, Home Rust; the page stays.
  await page.locator('[role=tab][aria-selected=true]').first().focus();
  let keyError = null;
  try {
    for (const [key, expected] of [['ArrowRight', 'python'], ['End', 'typescript'], ['ArrowRight', 'rust'], ['ArrowLeft', 'typescript'], ['Home', 'rust']]) {
      await page.keyboard.press(key);
      const focused = await page.evaluate(() => document.activeElement?.dataset.language);
      const now = await shown(page, `after ${key}`);
      check(now[0] === expected && focused === expected, `after ${key}: set 1 shows ${now[0]}, focus on ${focused}, expected ${expected}`);
    }
  } catch (err) {
    keyError = err; // a page turned under the check; told apart below
  }
  // mdBook turns the page by setting location.href, which takes effect a moment later.
  const turned = await page.waitForURL((url) => url.href !== base + 'cancel.html', { timeout: 1000 }).then(() => true, () => false);
  check(!turned, `the arrow keys turned the page: ${page.url()}`);
  if (keyError && !turned) throw keyError;
  if (turned) await page.goto(base + 'cancel.html', { waitUntil: 'load' });

  // The choice persists: reload, another page, another window of the book.
  await page.locator('[role=tab][data-language=python]').first().click();
  await page.reload({ waitUntil: 'load' });
  check((await shown(page, 'after reload')).join() === 'python,rust', 'after reload: Python not kept');
  const other = await context.newPage();
  watch(other, 'another page');
  await other.goto(base + 'another.html', { waitUntil: 'load' });
  check((await shown(other, 'another.html')).join() === 'python,python', 'another.html: Python not selected');
  const sets2 = (await other.evaluate(tabSets)).map((tabs) => tabs.map((tab) => tab.language).join()).join(' | ');
  check(sets2 === 'rust,python,typescript | rust,python', `another.html: tab sets ${sets2}`);
  const outside2 = await other.evaluate(() => [...document.querySelectorAll('main pre > code')]
    .filter((code) => !code.closest('.snippet-tabs-panel')).map((code) => code.textContent.trim()));
  check(outside2.join() === 'println!("rust: after the group");', `another.html: blocks outside tab sets ${outside2}`);
  await page.locator('[role=tab][data-language=typescript]').first().click();
  await other.waitForFunction(() => document.querySelector('[role=tab][aria-selected=true]')?.dataset.language === 'typescript', null, { timeout: 5000 })
    .catch(() => fail('another.html: did not follow the choice made in another window'));
  await other.close();

  // A failed snippet's panel shows, whatever the reader chose (TypeScript, here), and its tab
  // is marked; the other panels are as before.
  const warnings = [];
  const onWarning = (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); };
  page.on('console', onWarning);
  await page.goto(base + 'failed.html', { waitUntil: 'load' });
  page.off('console', onWarning);
  check((await shown(page, 'failed.html')).join() === 'python', 'failed.html: the failed Python panel is not shown');
  // ... and a marker before one language only is left alone, with a warning.
  const alone = await page.evaluate(() => [...document.querySelectorAll('main pre > code')]
    .filter((code) => !code.closest('.snippet-tabs-panel')).map((code) => code.textContent.trim()));
  check(alone.join() === 'println!("rust: alone");', `failed.html: blocks outside tab sets ${alone}`);
  check(warnings.length === 1 && warnings[0].startsWith('snippet-tabs:'), `failed.html: console warnings ${JSON.stringify(warnings)}`);
  const marked = await page.locator('[role=tab].snippet-tabs-failed').allTextContents();
  check(marked.join() === 'Python', `failed.html: tabs marked failed: ${marked}`);
  await page.goto(base + 'cancel.html', { waitUntil: 'load' });
  check((await shown(page, 'cancel.html after failed.html')).join() === 'typescript,typescript', 'cancel.html: the choice changed after failed.html');

  // The tabs' text and selection mark against their background, in every theme, one tab under
  // the pointer (its hover background counts too).
  await page.locator('[role=tab]').first().hover();
  for (const theme of themes) {
    const contrast = await page.evaluate((theme) => {
      const html = document.documentElement;
      html.classList.remove('light', 'rust', 'coal', 'navy', 'ayu');
      html.classList.add(theme);
      const rgb = (color) => color.match(/[\d.]+/g).map(Number);
      const background = (el) => {
        for (; el; el = el.parentElement) {
          const [r, g, b, a = 1] = rgb(getComputedStyle(el).backgroundColor);
          if (a > 0) return [r, g, b];
        }
        return [255, 255, 255];
      };
      const luminance = ([r, g, b]) => {
        const [R, G, B] = [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * R + 0.7152 * G + 0.0722 * B;
      };
      const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
      const tabs = [...document.querySelectorAll('[role=tab]')];
      const selected = tabs.find((tab) => tab.getAttribute('aria-selected') === 'true');
      return {
        text: Math.min(...tabs.map((tab) => ratio(rgb(getComputedStyle(tab).color), background(tab)))),
        mark: ratio(rgb(getComputedStyle(selected).borderBottomColor), background(selected)),
      };
    }, theme);
    console.log(`theme ${theme}: tab text contrast ${contrast.text.toFixed(1)}:1, selection mark ${contrast.mark.toFixed(1)}:1`);
    check(contrast.text >= 4.5, `theme ${theme}: tab text contrast ${contrast.text.toFixed(2)} < 4.5`);
    check(contrast.mark >= 3, `theme ${theme}: selection mark contrast ${contrast.mark.toFixed(2)} < 3`);
  }

  // Printing a chapter page shows every panel and no tab buttons.
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(tabSets);
  check(printed.flat().every((tab) => tab.visible), 'printing cancel.html: not every panel shows');
  check(await page.locator('[role=tablist]').first().isHidden(), 'printing cancel.html: the tab buttons show');
  await page.emulateMedia({ media: 'screen' });
  await context.close();

  // The search finds a word that only the TypeScript panel holds, and the page it opens shows
  // that panel, while the reader's choice stays.
  const searching = await browser.newContext();
  searching.setDefaultTimeout(5000);
  const finder = await searching.newPage();
  watch(finder, 'search');
  await finder.goto(base + 'another.html', { waitUntil: 'load' });
  await finder.locator('[role=tab][data-language=python]').first().click();
  await finder.click('#mdbook-search-toggle');
  await finder.locator('#mdbook-searchbar').pressSequentially('AbortController');
  try {
    await finder.locator('#mdbook-searchresults li a[href*="cancel.html"]').first().click();
    await finder.waitForURL(/cancel\.html/);
    await finder.waitForLoadState('load');
    const now = await shown(finder, 'search hit');
    check(now.join() === 'typescript,rust', `search hit "AbortController": sets show ${now}, expected typescript,rust`);
    check(await finder.locator('[role=tabpanel]:visible mark').count() > 0, 'search hit "AbortController": no highlighted word in a shown panel');
    const kept = await finder.evaluate(() => localStorage.getItem('mdbook-snippets.language'));
    check(kept === 'python', `search hit: the stored choice became ${kept}`);
  } catch (err) {
    fail(`search for "AbortController" (only in a TypeScript panel): ${err.message.split('\n')[0]}`);
  }
  await searching.close();

  // Storage refused (privacy settings): the tabs still work, for the page's life.
  const refused = await browser.newContext();
  await refused.addInitScript(() => Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('refused', 'SecurityError'); } }));
  const locked = await refused.newPage();
  watch(locked, 'storage refused');
  await locked.goto(base + 'cancel.html', { waitUntil: 'load' });
  await locked.locator('[role=tab][data-language=typescript]').first().click();
  check((await shown(locked, 'storage refused')).join() === 'typescript,typescript', 'storage refused: a click does not switch the tabs');
  await refused.close();

  // Without JavaScript, and in the print view, every block shows, one after another (the Rust
  // snippets' expected output is the verifier's output box, not a code block).
  const wanted = 'rust,python,text,typescript,text,rust,typescript,rust,toml';
  const noScript = await browser.newContext({ javaScriptEnabled: false });
  const scripted = await browser.newContext();
  for (const [view, context, name] of [['without JavaScript', noScript, 'cancel.html'], ['print view', scripted, 'print.html']]) {
    const target = await context.newPage();
    watch(target, view);
    await target.goto(base + name, { waitUntil: 'load' });
    const blocks = await target.evaluate(() => ({
      tablists: document.querySelectorAll('[role=tablist]').length,
      languages: [...document.querySelectorAll('main pre > code')].filter((code) => code.getBoundingClientRect().height > 0)
        .map((code) => code.className.split(' ')[0].replace('language-', '')),
      outputs: [...document.querySelectorAll('main .mdbook-snippets-output, main code.output')].filter((el) => el.getBoundingClientRect().height > 0).length,
    }));
    const seen = blocks.languages.slice(0, wanted.split(',').length).join();
    check(blocks.tablists === 0, `${view}: ${blocks.tablists} tab lists`);
    check(seen === wanted, `${view}: visible blocks ${seen}, expected ${wanted}`);
    console.log(`${view}: ${blocks.languages.length} code blocks and ${blocks.outputs} outputs shown one after another`);
  }
  await noScript.close();
  await scripted.close();

  // At 390 px and 1280 px the tab sets fit the column (the tab buttons wrap; code scrolls in its box).
  await checkWidths(browser, base, ['cancel.html', 'another.html', 'failed.html'], fail);
} catch (err) {
  fail(`the check stopped: ${err.message.split('\n')[0]}`);
} finally {
  await browser.close();
  server.close();
}
console.log(failures.length === 0 ? 'tabs check: 0 failed' : `tabs check: ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);

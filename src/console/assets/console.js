// Quill console: small progressive enhancements. Every page works without this file.

// Once a form is sent the page is on its way out: no live update may reload it over the form's answer (a decision
// changes the status it watches, and a reload then would abort the navigation to the answer).
let leaving = false;
document.addEventListener('submit', () => {
  leaving = true;
});

// Live updates (issue 30 item 5): one event stream per tab (/console/events, the wallet's party-scoped stream of
// submission events). Nothing moves under the operator: rows and cards already shown are patched in place, new
// ones wait behind a "N new — show" button, counts are swapped, and a part holding the focus or a form being
// filled in is left alone (the page offers to show the change instead). Only the change is announced.
const lists = () => [...document.querySelectorAll('[data-live-list]')];
const regions = () => [...document.querySelectorAll('[data-live-region]')];
const record = document.querySelector('[data-live-record]');

const announcer = document.createElement('div');
announcer.className = 'visually-hidden';
announcer.setAttribute('role', 'status');
announcer.setAttribute('aria-live', 'polite');
document.body.append(announcer);
function announce(text) {
  announcer.textContent = text;
}

const bar = document.createElement('button');
bar.type = 'button';
bar.className = 'live-bar';
bar.hidden = true;
bar.dataset.testid = 'live-bar';
document.body.append(bar);

/** Whether the operator is busy in this part: it holds the focus, or a form field in it was changed. */
function busy(el) {
  if (el.contains(document.activeElement) && document.activeElement !== document.body) return true;
  for (const f of el.querySelectorAll('input, textarea, select')) {
    if (f.type === 'hidden' || f.type === 'submit') continue;
    if (f.tagName === 'SELECT') {
      const chosen = [...f.options].findIndex((o) => o.defaultSelected);
      if (f.selectedIndex !== Math.max(0, chosen)) return true;
    } else if (
      f.type === 'checkbox' || f.type === 'radio'
        ? f.checked !== f.defaultChecked
        : f.value !== f.defaultValue
    )
      return true;
  }
  return false;
}

const shortId = (id) => (id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);
const statusOf = (el) => el.querySelector('[data-status]')?.getAttribute('data-status');

async function fetchDoc(url) {
  const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
  if (!res.ok) return undefined;
  const tpl = document.createElement('template');
  tpl.innerHTML = (await res.text()).trim();
  for (const b of tpl.content.querySelectorAll('button.copy[data-copy]')) b.hidden = false;
  return tpl.content;
}

/** Whether the record page waits to be reloaded (the operator was busy in it when it changed). */
let reloadOnShow = false;
/** Set by the "show" button: the next refresh replaces the lists instead of patching them. */
let showAll = false;

bar.addEventListener('click', () => {
  bar.hidden = true;
  if (reloadOnShow) {
    location.reload();
    return;
  }
  showAll = true;
  schedule(0);
});

function offer(text) {
  bar.textContent = `${text} — show`;
  bar.hidden = false;
}

/** Where the pointer is (else the top of the window): the content there must not move. */
let pointer = { x: 0, y: 0 };
document.addEventListener('mousemove', (e) => {
  pointer = { x: e.clientX, y: e.clientY };
});

/**
 * Swaps a part of the page without moving what the operator looks at: it never shrinks (its old height stays its
 * least), and what it grows by above that place is scrolled away.
 */
function keepingPlace(el, swap) {
  const anchor = document.elementFromPoint(pointer.x, pointer.y);
  const before = anchor && !el.contains(anchor) ? anchor.getBoundingClientRect().top : undefined;
  const height = el.getBoundingClientRect().height;
  swap();
  if (el.getBoundingClientRect().height < height) el.style.minHeight = `${height}px`;
  if (before !== undefined) {
    const moved = anchor.getBoundingClientRect().top - before;
    if (moved !== 0) window.scrollBy(0, moved);
  }
}

/** One list against its fresh copy: patch what is shown; say what is new or changed under a busy operator. */
function patchList(old, fresh, said) {
  const shown = new Map([...old.querySelectorAll(':scope > [data-id]')].map((e) => [e.dataset.id, e]));
  const incoming = [...fresh.querySelectorAll(':scope > [data-id]')];
  let added = 0;
  let changed = 0;
  for (const item of incoming) {
    const mine = shown.get(item.dataset.id);
    if (!mine) {
      added++;
      continue;
    }
    if (mine.outerHTML === item.outerHTML) continue;
    if (busy(mine)) {
      changed++;
      continue;
    }
    const before = statusOf(mine);
    const after = statusOf(item);
    mine.replaceWith(item.cloneNode(true));
    if (after && before !== after) said.push(`${shortId(item.dataset.id)} ${after}`);
  }
  // Rows gone from the fresh copy: beyond those the new ones pushed off a full page, they changed (decided,
  // filtered out).
  const gone = [...shown.keys()].filter((id) => !incoming.some((e) => e.dataset.id === id)).length;
  changed += Math.max(0, gone - added);
  const parts = [];
  if (added) parts.push(`${added} new`);
  if (changed) parts.push(`${changed} changed`);
  return parts.join(', ');
}

async function refresh() {
  const all = showAll;
  showAll = false;
  const said = [];
  const offers = [];
  const bySrc = new Map();
  for (const el of [...lists(), ...regions()]) {
    const src = el.closest('[data-live-src]')?.getAttribute('data-live-src') ?? location.href;
    if (!bySrc.has(src)) bySrc.set(src, fetchDoc(src));
  }
  for (const old of lists()) {
    const src = old.closest('[data-live-src]')?.getAttribute('data-live-src') ?? location.href;
    const doc = await bySrc.get(src);
    const fresh = doc?.querySelector(`[data-live-list="${old.dataset.liveList}"]`);
    if (!fresh || !old.isConnected) continue;
    if (all) old.replaceWith(fresh.cloneNode(true));
    else {
      const offered = patchList(old, fresh, said);
      if (offered) offers.push(offered);
    }
  }
  for (const old of regions()) {
    const doc = await bySrc.get(location.href);
    const fresh = doc?.querySelector(`[data-live-region="${old.dataset.liveRegion}"]`);
    if (fresh && fresh.innerHTML !== old.innerHTML && !busy(old))
      keepingPlace(old, () => {
        old.innerHTML = fresh.innerHTML;
      });
  }
  if (offers.length > 0) offer(offers.join(', '));
  else if (!reloadOnShow) bar.hidden = true;
  if (said.length > 0 || offers.length > 0)
    announce([...said, ...(offers.length ? [`${offers.join(', ')}: press Show`] : [])].join('; '));
}

let timer;
let running = false;
let again = false;
function schedule(delayMs = 250) {
  if (leaving) return;
  if (running) {
    again = true;
    return;
  }
  clearTimeout(timer);
  timer = setTimeout(async () => {
    running = true;
    try {
      await refresh();
    } catch {
      // offline for a moment: the next event tries again
    }
    running = false;
    if (again) {
      again = false;
      schedule();
    }
  }, delayMs);
}

function onEvent(event) {
  if (leaving) return;
  let e;
  try {
    e = JSON.parse(event.data);
  } catch {
    return;
  }
  const id = e?.body?.id;
  if (record && id === record.getAttribute('data-live-record')) {
    const status = e.body.status;
    if (busy(document.querySelector('main'))) {
      reloadOnShow = true;
      offer(`This submission is now ${status}`);
      announce(`This submission is now ${status}: press Show`);
      schedule();
    } else location.reload();
    return;
  }
  schedule();
}

if (lists().length + regions().length > 0 || record) {
  const source = new EventSource('/console/events');
  for (const type of [
    'submission.accepted',
    'submission.awaiting_approval',
    'submission.approval',
    'submission.awaiting_signatures',
    'submission.signature',
    'submission.committed',
    'submission.rejected',
    'submission.expired',
  ])
    source.addEventListener(type, onEvent);
  source.addEventListener('open', () => {
    document.documentElement.dataset.live = 'on';
  });
  window.addEventListener('pagehide', () => source.close());
}

// Copy buttons beside ids (ui.tsx Id): shown only where the script runs; they copy the whole value.
for (const button of document.querySelectorAll('button.copy[data-copy]')) button.hidden = false;
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.copy[data-copy]') : null;
  if (!button) return;
  try {
    await navigator.clipboard.writeText(button.getAttribute('data-copy') ?? '');
    button.textContent = 'copied';
  } catch {
    button.textContent = 'not copied';
  }
  setTimeout(() => {
    button.textContent = 'copy';
  }, 1500);
});

// The header's menu: open as served (so it works without this script), folded on a narrow screen.
const menu = document.querySelector('header details.menu');
if (menu && window.matchMedia('(max-width: 640px)').matches) menu.open = false;

// A table that scrolls sideways (a narrow screen) is reachable by keyboard even when none of its cells is.
for (const table of document.querySelectorAll('main table')) {
  if (table.scrollWidth > table.clientWidth && !table.querySelector('a, button, input, select, textarea')) {
    table.tabIndex = 0;
  }
}

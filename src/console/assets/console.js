// Quill console: small progressive enhancements. Every page works without this file.

const POLL_MS = 1500;

// Once a form is sent the page is on its way out: no refresh may reload it over the form's answer (a decision
// changes the status it watches, and a reload then would abort the navigation to the answer).
let leaving = false;
document.addEventListener('submit', () => {
  leaving = true;
});

// Submissions list: swap in fresh rows so status changes appear without a reload.
for (const table of document.querySelectorAll('table[data-live]')) {
  const url = table.getAttribute('data-live');
  setInterval(async () => {
    if (document.hidden || leaving) return;
    try {
      const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const tpl = document.createElement('template');
      tpl.innerHTML = (await res.text()).trim();
      const fresh = tpl.content.querySelector('tbody');
      for (const b of fresh?.querySelectorAll('button.copy[data-copy]') ?? []) b.hidden = false;
      const old = table.querySelector('tbody');
      if (fresh && old && fresh.innerHTML !== old.innerHTML) old.replaceWith(fresh);
    } catch {
      // offline for a moment: the next tick tries again
    }
  }, POLL_MS);
}

// A submission's page: reload when its status changes (attempts, update id and transaction come with it).
const watched = document.querySelector('[data-live-status]');
if (watched) {
  const url = watched.getAttribute('data-live-status');
  const shown = watched.querySelector('[data-status]')?.getAttribute('data-status');
  const timer = setInterval(async () => {
    if (document.hidden || leaving) return;
    try {
      const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (!res.ok) return;
      const body = await res.json();
      if (body.status !== shown && !leaving) {
        clearInterval(timer);
        location.reload();
      }
    } catch {
      // as above
    }
  }, POLL_MS);
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

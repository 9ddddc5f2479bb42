// Tidings console: progressive enhancement only; every page works without this file.
(() => {
  // Times arrive as UTC; show them in the viewer's time zone, with the UTC time on hover.
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
  for (const time of document.querySelectorAll("time[datetime]")) {
    const at = new Date(time.getAttribute("datetime"));
    if (Number.isNaN(at.getTime())) continue;
    time.title = time.textContent;
    time.textContent = format.format(at);
  }

  // Copy buttons: hidden until this script can make them work.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(button.dataset.copy);
        button.textContent = "Copied";
      } catch {
        button.textContent = "Copy failed: select the text";
      }
      setTimeout(() => {
        button.textContent = label;
      }, 2000);
    });
  }

  // Forms that change something hard to undo ask first.
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  // A message still settling (or a delivery pending) refreshes itself, unless the reader is
  // busy with a form on the page.
  const settling = document.querySelector("[data-refresh]");
  if (settling) {
    const seconds = Math.max(2, Number(settling.dataset.refresh) || 5);
    setTimeout(() => {
      const active = document.activeElement;
      if (!active?.closest("form")) window.location.reload();
    }, seconds * 1000);
  }
})();

// Counts down to the next challenge day, then reloads the page for the new deals.
const el = document.getElementById("countdown");
if (el) {
  const end = Date.now() + Number(el.dataset.seconds) * 1000;
  const pad = (n) => String(n).padStart(2, "0");
  const tick = () => {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    el.textContent = `${pad(Math.floor(left / 3600))}:${pad(Math.floor((left % 3600) / 60))}:${pad(left % 60)}`;
    el.setAttribute("datetime", `PT${left}S`);
    if (left === 0) setTimeout(() => location.reload(), 2000);
    else setTimeout(tick, 1000);
  };
  tick();
}

// The web console (docs/observability.md "Web console"): first version, the mirrors' JSON.
async function refresh() {
  const r = await fetch('/v1/mirrors');
  document.getElementById('mirrors').textContent = await r.text();
}
refresh();
setInterval(refresh, 1000);

(function () {
  'use strict';
  // The runs table: a click on a column sorts by it (figures largest
  // first; a second click reverses), the filter box keeps the rows holding
  // its words, and the totals row sums the rows shown. A value a run does
  // not give (data-v empty) sorts last and is left out of the sums.
  var table = document.getElementById('runs');
  if (!table) return;
  var heads = table.tHead.rows[0].cells;
  var body = table.tBodies[0];
  var totals = document.getElementById('totals');
  var filter = document.getElementById('filter');
  var count = document.getElementById('stats');
  var all = Array.prototype.slice.call(body.rows);
  var current = -1, dir = 1;
  function value(row, col, num) {
    var v = row.cells[col].getAttribute('data-v') || '';
    if (num) return v === '' ? (dir > 0 ? Infinity : -Infinity) : Number(v);
    return v.toLowerCase();
  }
  function sortBy(th, col) {
    var num = th.getAttribute('data-type') === 'num';
    dir = current === col ? -dir : (num ? -1 : 1);
    current = col;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, col, num), y = value(b, col, num);
      return x < y ? -dir : x > y ? dir : 0;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(heads, function (h) { h.classList.remove('asc', 'desc'); h.removeAttribute('aria-sort'); });
    th.classList.add(dir > 0 ? 'asc' : 'desc');
    th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
  }
  Array.prototype.forEach.call(heads, function (th, col) {
    th.tabIndex = 0;
    th.addEventListener('click', function () { sortBy(th, col); });
    th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(th, col); } });
  });

  function group(s) {
    var neg = s.charAt(0) === '-', out = '';
    if (neg) s = s.slice(1);
    while (s.length > 3) { out = ',' + s.slice(-3) + out; s = s.slice(0, -3); }
    return (neg ? '-' : '') + s + out;
  }
  function duration(ms) { // as runstats.Duration
    if (ms < 1000) return ms + 'ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + 's';
    if (ms < 3600000) return Math.floor(ms / 60000) + 'm' + String(Math.floor(ms / 1000) % 60).padStart(2, '0') + 's';
    return Math.floor(ms / 3600000) + 'h' + String(Math.floor(ms / 60000) % 60).padStart(2, '0') + 'm';
  }
  function retotal(shown) {
    Array.prototype.forEach.call(heads, function (th, col) {
      if (th.getAttribute('data-type') !== 'num') return;
      var name = th.getAttribute('data-col'), sum = 0, known = 0;
      shown.forEach(function (r) {
        var v = r.cells[col].getAttribute('data-v');
        if (v !== null && v !== '') { sum += Number(v); known++; }
      });
      var text = '—';
      if (known) text = name === 'duration' ? duration(sum) : name === 'cost_usd' ? '$' + sum.toFixed(4) : group(String(Math.round(sum)));
      totals.cells[col].textContent = text;
    });
    var runs = shown.length === all.length ? shown.length + (shown.length === 1 ? ' run' : ' runs') : shown.length + ' of ' + all.length + ' runs';
    Array.prototype.forEach.call(heads, function (th, col) {
      if (th.getAttribute('data-col') === 'prompt') totals.cells[col].textContent = runs;
      if (th.getAttribute('data-col') === 'file') totals.cells[col].textContent = shown.length === all.length ? 'total' : 'total shown';
    });
    count.textContent = runs;
  }
  var text = all.map(function (r) { return r.textContent.toLowerCase(); });
  function apply() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = [];
    all.forEach(function (r, i) {
      var keep = words.every(function (w) { return text[i].indexOf(w) >= 0; });
      r.hidden = !keep;
      if (keep) shown.push(r);
    });
    retotal(shown);
  }
  filter.addEventListener('input', apply);
  if (filter.value) apply();
})();

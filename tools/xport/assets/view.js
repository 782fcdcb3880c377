// xport view: pan and zoom (d3's zoom behaviour), a minimap, a properties panel on click, search,
// and on a diff page the matched node in the other program. Reads the page's JSON
// (#xport-data): nodes and weights by element id, and the pictures with the node each opens on.
'use strict';
(function () {
  const data = JSON.parse(document.getElementById('xport-data').textContent);
  const diff = document.body.classList.contains('diff');
  const props = document.getElementById('props');
  const status = document.getElementById('status');
  const viewers = {};
  let current = null;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
                                               '"': '&quot;'})[c]);
  }

  // One picture: its Graphviz SVG inside a zoomed <g class="viewport">, and a minimap that
  // shows the whole graph (an SVG <use> of it) with the visible part framed.
  function Viewer(pic) {
    const svgEl = pic.querySelector('svg');
    const svg = d3.select(svgEl).attr('width', null).attr('height', null).attr('viewBox', null);
    const graph = svgEl.querySelector('g.graph');
    graph.id = 'graph_' + pic.id;
    const vp = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    vp.setAttribute('class', 'viewport');
    svgEl.insertBefore(vp, graph);
    vp.appendChild(graph);
    const mini = d3.select(pic).append('svg').attr('class', 'minimap')
        .attr('preserveAspectRatio', 'xMidYMid meet');
    mini.append('use').attr('href', '#' + graph.id);
    const frame = mini.append('rect').attr('class', 'view');
    const zoom = d3.behavior.zoom().scaleExtent([0.005, 4]).on('zoom', apply);
    svg.call(zoom).on('dblclick.zoom', null);
    const box = vp.getBBox();
    mini.attr('viewBox', [box.x, box.y, box.width, box.height].join(' '));
    // The minimap takes the graph's shape, within 180 x 140 pixels.
    const aspect = box.width / Math.max(box.height, 1);
    mini.style('width', Math.max(30, Math.min(180, 140 * aspect)) + 'px')
        .style('height', Math.max(30, Math.min(140, 180 / aspect)) + 'px');

    function size() { const r = svgEl.getBoundingClientRect(); return [r.width, r.height]; }
    function apply() {
      const t = zoom.translate(), k = zoom.scale(), s = size();
      vp.setAttribute('transform', 'translate(' + t[0] + ',' + t[1] + ')scale(' + k + ')');
      frame.attr({x: -t[0] / k, y: -t[1] / k, width: s[0] / k, height: s[1] / k});
    }
    function set(k, tx, ty) { zoom.scale(k).translate([tx, ty]); zoom.event(svg); }
    // The centre of a node in the viewport's coordinates.
    function centre(el) {
      const b = el.getBBox(), m = graph.transform.baseVal.consolidate();
      const p = svgEl.createSVGPoint();
      p.x = b.x + b.width / 2;
      p.y = b.y + b.height / 2;
      return m ? p.matrixTransform(m.matrix) : p;
    }
    this.focus = function (el, k, top) {
      const c = centre(el), s = size();
      k = k || Math.max(zoom.scale(), 1);
      set(k, s[0] / 2 - c.x * k, top ? 80 - c.y * k : s[1] / 2 - c.y * k);
    };
    this.fit = function () {
      const s = size(), k = Math.min(4, 0.95 * Math.min(s[0] / box.width, s[1] / box.height));
      set(k, (s[0] - box.width * k) / 2 - box.x * k, (s[1] - box.height * k) / 2 - box.y * k);
    };
    this.scaleBy = function (f) {
      const s = size(), t = zoom.translate(), k = zoom.scale();
      const k2 = Math.max(0.005, Math.min(4, k * f));
      set(k2, s[0] / 2 - (s[0] / 2 - t[0]) * k2 / k, s[1] / 2 - (s[1] / 2 - t[1]) * k2 / k);
    };
    this.apply = apply;
    mini.on('mousedown', function () {
      const p = d3.mouse(this), s = size(), k = zoom.scale();
      set(k, s[0] / 2 - p[0] * k, s[1] / 2 - p[1] * k);
    });
    svgEl.addEventListener('click', e => {
      const g = e.target.closest('g.node');
      if (g) select(g.id, false);
    });
    svgEl.addEventListener('mousedown', () => { current = this; });
  }

  function viewer(pic) {
    if (!viewers[pic.id]) {
      viewers[pic.id] = new Viewer(pic);
      const info = data.pictures.find(p => p.id === pic.id);
      const open = info && info.open && document.getElementById(info.open);
      if (open) viewers[pic.id].focus(open, 1, true); else viewers[pic.id].fit();
    }
    return viewers[pic.id];
  }

  const chooser = document.getElementById('picture');
  function show(picId) {
    if (!diff) {
      document.querySelectorAll('.picture').forEach(p => { p.hidden = p.id !== picId; });
      chooser.value = picId;
    }
    current = viewer(document.getElementById(picId));
    return current;
  }
  document.querySelectorAll('.picture').forEach(p => {
    const o = document.createElement('option');
    o.value = p.id;
    o.textContent = p.dataset.title;
    chooser.appendChild(o);
  });
  if (diff) chooser.hidden = true;
  chooser.addEventListener('change', () => show(chooser.value));
  const button = (id, fn) => document.getElementById(id).addEventListener('click', () => {
    if (current) fn(current);
  });
  button('fit', v => v.fit());
  button('zoom-in', v => v.scaleBy(1.5));
  button('zoom-out', v => v.scaleBy(1 / 1.5));
  window.addEventListener('resize', () => Object.values(viewers).forEach(v => v.apply()));

  // ---- the properties panel ----
  function parts(list) {
    return list.map(p => p.ref
        ? '<a class="ref" data-ref="' + esc(p.ref) + '"' +
          (p.weight ? ' data-weight="' + esc(p.weight) + '"' : '') + '>' + esc(p.t) + '</a>'
        : esc(p.t)).join('');
  }
  function row(name, value) { return '<tr><th>' + esc(name) + '</th><td>' + value + '</td></tr>'; }
  function num(x) { return typeof x === 'number' ? Number(x.toPrecision(6)).toString() : ''; }
  function weightRows(key) {
    const w = data.weights[key];
    if (!w) return '';
    return row('weight', esc(w.target)) + row('kind', esc(w.kind)) +
        row('dtype', esc(w.dtype || '')) + row('shape', esc(JSON.stringify(w.shape || []))) +
        row('bytes', esc(w.bytes)) + row('min', num(w.min)) + row('max', num(w.max)) +
        row('mean', num(w.mean)) +
        row('values', esc((w.values || []).map(num).join(', ') + (w.values ? ', ...' : '')));
  }
  function showWeight(key) {
    props.innerHTML = '<h3>' + esc(key) + '</h3><table class="weight" data-weight="' +
        esc(key) + '">' + weightRows(key) + '</table>';
  }
  function showNode(id) {
    const n = data.nodes[id];
    if (!n) return;
    if (n.weight && !document.getElementById(id)) return showWeight(n.weight);
    let h = '<h3>' + esc(n.name) + '</h3><table id="node-props">' +
        row('op', esc(n.op || n.kind)) + row('source', esc(n.source || '')) +
        row('module', esc(n.module || '')) + '</table>';
    if (n.diff) {
      h += '<p class="status-' + esc(n.diff.status) + '">' + esc(n.diff.status) +
          (n.diff.peers.length ? ': matches ' + n.diff.peers.slice(0, 24).map(p =>
              '<a class="ref" data-ref="' + esc(p) + '">' + esc(p.slice(5)) + '</a>').join(', ')
              : '') + (n.diff.peers.length > 24 ? ' and ' + (n.diff.peers.length - 24) +
              ' more' : '') + '</p>';
    }
    if (n.schema) h += '<pre class="schema">' + esc(n.schema) + '</pre>';
    h += '<h4>Arguments</h4><table id="node-args">' +
        n.args.map(a => '<tr><th class="arg-name">' + esc(a.name) + '</th><td>' +
                        parts(a.parts) + '</td></tr>').join('') + '</table>';
    h += '<h4>Outputs</h4><table id="node-outputs">' +
        n.outputs.map((o, i) => row(String(i), esc(o))).join('') + '</table>';
    const read = [];
    n.args.forEach(a => a.parts.forEach(p => { if (p.weight) read.push(p.weight); }));
    if (read.length) {
      h += '<h4>Weights</h4>' + read.map(w => '<table class="weight" data-weight="' + esc(w) +
                                            '">' + weightRows(w) + '</table>').join('');
    }
    if (n.modules.length) h += '<h4>Modules</h4><pre>' + esc(n.modules.join('\n')) + '</pre>';
    if (n.users.length) h += '<h4>Used by</h4><p>' + parts(n.users.flatMap(
        (u, i) => i ? [{t: ', '}, u] : [u])) + '</p>';
    props.innerHTML = h;
  }
  function mark(cls, el) {
    document.querySelectorAll('g.node.' + cls).forEach(g => g.classList.remove(cls));
    if (el) el.classList.add(cls);
  }
  // Shows node `id`'s properties; with `move`, brings it to the middle of its picture. On a
  // diff page the matched node of the other program is brought into view too.
  function select(id, move) {
    const el = document.getElementById(id);
    const n = data.nodes[id];
    if (!el) {
      if (n && n.weight) showWeight(n.weight);
      return null;
    }
    const v = show(el.closest('.picture').id);
    if (move) v.focus(el);
    mark('selected', el);
    showNode(id);
    if (n && n.diff && n.diff.peers.length) {
      const peer = document.getElementById(n.diff.peers[0]);
      if (peer) { viewer(peer.closest('.picture')).focus(peer); mark('found', peer); }
      current = v;
    }
    return el;
  }
  props.addEventListener('click', e => {
    const a = e.target.closest('a.ref');
    if (!a) return;
    if (a.dataset.weight && !document.getElementById(a.dataset.ref)) showWeight(a.dataset.weight);
    else select(a.dataset.ref, true);
  });
  document.querySelectorAll('tr[data-weight]').forEach(tr => {
    tr.addEventListener('click', () => showWeight(tr.dataset.weight));
  });

  // ---- search: by node name, op or module path ----
  const box = document.getElementById('search');
  const results = document.getElementById('results');
  const index = Object.keys(data.nodes).map(id => {
    const n = data.nodes[id];
    return {id, name: n.name, text: (n.name + ' ' + (n.op || '') + ' ' + n.module).toLowerCase()};
  });
  function matches(q) {
    q = q.trim().toLowerCase();
    if (!q) return [];
    const exact = index.filter(e => e.name.toLowerCase() === q || e.id === 'node_' + q);
    return exact.concat(index.filter(e => !exact.includes(e) && e.text.includes(q)));
  }
  function find(q) {
    mark('found', null);
    const hits = matches(q);
    if (!hits.length) {
      status.textContent = q.trim() ? 'no node matches "' + q + '"' : '';
      return;
    }
    const el = select(hits[0].id, true);
    if (el) mark('found', el);
    status.textContent = 'found ' + hits[0].id.slice(5) +
        (hits.length > 1 ? ' (' + hits.length + ' matches)' : '');
  }
  box.addEventListener('input', () => {
    results.innerHTML = matches(box.value).slice(0, 40).map(e => {
      const n = data.nodes[e.id];
      return '<li data-id="' + esc(e.id) + '">' + esc(e.id.slice(5)) + ' <span class="hint">' +
             esc(n.op || n.kind) + ' ' + esc(n.module) + '</span></li>';
    }).join('');
  });
  box.addEventListener('keydown', e => { if (e.key === 'Enter') find(box.value); });
  results.addEventListener('click', e => {
    const li = e.target.closest('li');
    if (li) { select(li.dataset.id, true); mark('found', document.getElementById(li.dataset.id)); }
  });

  document.querySelectorAll('.picture:not([hidden])').forEach(p => { current = viewer(p); });
  const m = location.hash.match(/^#search=(.*)$/);
  if (m) { box.value = decodeURIComponent(m[1]); find(box.value); }
})();

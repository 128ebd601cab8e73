// Step through backprop: each step runs one node's backward, as micrograd's backward() does.
// The steps (precomputed in Python) say which gradients change from what to what, so going
// back undoes exactly what going forward did.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("mg-data").textContent);
  const steps = data.steps;
  const pane = document.getElementById("mg-graph");
  let svg = null;  // the SVG on screen: a folded network swaps in another view's
  const grads = {};
  let gradText = {};
  let current = 0;
  let shownView = "folded";  // "folded", a group's index (that group unfolded) or "full"

  function fmt(x) {  // the picture's format: %.4f, exponent form when 4 decimals hide x
    if (typeof x === "string") return x;  // "nan", "inf", "-inf"
    const a = Math.abs(x);
    if (x === 0 || (a >= 1e-4 && a < 1e9)) return x.toFixed(4);
    return x.toExponential(4);
  }

  for (const id in data.nodes) grads[id] = 0;

  // The element that shows node `id` (or its op, `id_op`) now: its own, or its folded group's box.
  function onScreen(id) {
    if (document.getElementById(id)) return id;
    const node = data.nodes[id.replace(/_op$/, "")];
    const group = node ? node.group : undefined;
    return group === undefined || group === null ? id : data.groups[group].id;
  }

  // The leaves table: its grad column fills in as the steps reach each leaf.
  const tbody = document.querySelector("#mg-leaves tbody");
  const leafCells = {};
  for (const id of data.leaves) {
    const node = data.nodes[id];
    const row = document.createElement("tr");
    row.dataset.id = id;
    const cells = [node.name, fmt(node.data), "", ...(data.numerical ? [node.numerical === null ? "—" : fmt(node.numerical)] : []), node.kind];
    for (const text of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      row.appendChild(td);
    }
    row.children[2].className = "mg-leaf-grad";
    tbody.appendChild(row);
    leafCells[id] = row;
  }

  function setClass(ids, cls) {
    document.querySelectorAll("." + cls).forEach(e => e.classList.remove(cls));
    for (const id of ids) {
      const e = document.getElementById(onScreen(id));
      if (e) e.classList.add(cls);
    }
  }

  function close(a, b) {
    if (typeof a === "string" || typeof b === "string" || a === null || b === null) return a === b;
    return Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(a), Math.abs(b));
  }

  function render(keepView) {
    const step = steps[current];
    const touched = new Set();
    for (let k = 1; k <= current; k++) for (const u of steps[k].updates) touched.add(u.id);
    for (const id in gradText) {
      gradText[id].textContent = "grad " + fmt(grads[id]);
      const g = document.getElementById(id);
      g.classList.toggle("mg-filled", touched.has(id));
    }
    for (const group of data.groups) {  // a folded box is filled once a member has its gradient
      const box = document.getElementById(group.id);
      if (box) box.classList.toggle("mg-filled", Array.from(touched).some(id => onScreen(id) === group.id));
    }
    const changed = step.updates.map(u => u.id);
    setClass(step.node ? [step.node, step.node + "_op"] : [], "mg-active");
    setClass(changed.filter(id => id !== step.node), "mg-receiving");
    setClass(changed, "mg-changed");
    for (const id of step.edges || []) { const e = document.getElementById(id); if (e) e.classList.add("mg-active"); }
    for (const id in leafCells) {
      const row = leafCells[id];
      const cell = row.children[2];
      cell.textContent = touched.has(id) ? fmt(grads[id]) : "";
      row.classList.toggle("mg-receiving", changed.includes(id));
      cell.classList.remove("mg-ok", "mg-off");
      const numerical = data.nodes[id].numerical;
      // mark agreement once backprop is done; a nan/inf numerical check proves nothing
      if (current === steps.length - 1 && typeof numerical === "number" && typeof grads[id] === "number") {
        cell.classList.add(close(grads[id], numerical) || Math.abs(grads[id] - numerical) < 1e-3 ? "mg-ok" : "mg-off");
      }
    }
    document.getElementById("mg-counter").textContent = `step ${current} of ${steps.length - 1}`;
    document.getElementById("mg-step-title").textContent = step.title;
    document.getElementById("mg-step-lines").textContent = step.lines.join("\n");
    document.getElementById("mg-prev").disabled = current === 0;
    document.getElementById("mg-first").disabled = current === 0;
    document.getElementById("mg-next").disabled = current === steps.length - 1;
    document.getElementById("mg-last").disabled = current === steps.length - 1;
    if (step.node && !keepView) follow([step.node, step.node + "_op", ...changed]);
  }

  function go(target) {
    target = Math.max(0, Math.min(steps.length - 1, target));
    while (current < target) {  // run steps forward: apply their updates
      current++;
      for (const u of steps[current].updates) grads[u.id] = u.after;
    }
    while (current > target) {  // undo: restore what each step overwrote, newest first
      const ups = steps[current].updates;
      for (let i = ups.length - 1; i >= 0; i--) grads[ups[i].id] = ups[i].before;
      current--;
    }
    render();
  }

  // --- pan and zoom by moving the SVG viewBox ------------------------------------------
  let full = null;
  // Take the SVG now in the pane: its whole extent (for fit) and its gradient texts.
  function attach() {
    svg = document.querySelector("#mg-graph svg");
    gradText = {};
    if (!svg) return;
    for (const id in data.nodes) {
      const g = document.getElementById(id);
      if (!g) continue;
      const t = Array.from(g.querySelectorAll("text")).find(e => e.textContent.trim().startsWith("grad "));
      if (t) { t.classList.add("mg-grad"); gradText[id] = t; }
    }
    const vb = svg.viewBox.baseVal;
    full = vb && vb.width ? { x: vb.x, y: vb.y, width: vb.width, height: vb.height }
                          : { x: 0, y: 0, width: svg.getBBox().width, height: svg.getBBox().height };
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  }
  attach();
  // Show another view of a folded network (see viz/fold.py): the whole of it fits at first.
  const unfoldButton = document.getElementById("mg-unfold");
  function showView(name) {
    const template = document.getElementById("mg-view-" + name);
    if (!template) return;
    pane.replaceChildren(template.content.cloneNode(true));
    shownView = String(name);
    attach();
    unfoldButton.textContent = shownView === "full" ? "fold" : "unfold all";
    render(true);
    fit();
  }
  if (data.groups.length) {
    unfoldButton.hidden = false;
    unfoldButton.onclick = () => showView(shownView === "full" ? "folded" : "full");
  }
  // A click (not a drag) on a folded box unfolds it; on a node of the unfolded group, folds it.
  function clicked(target) {
    const g = target && target.closest ? target.closest("g.node") : null;
    if (!g) return;
    const box = data.groups.findIndex(group => group.id === g.id);
    if (box >= 0) { showView(box); return; }
    const node = data.nodes[g.id.replace(/_op$/, "")];
    if (node && node.group !== undefined && node.group !== null && String(node.group) === shownView) showView("folded");
  }
  function setView(v) { svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.width} ${v.height}`); }
  function view() { const b = svg.viewBox.baseVal; return { x: b.x, y: b.y, width: b.width, height: b.height }; }
  function fit() { if (svg) setView(full); }
  function toSvg(clientX, clientY) {
    const p = svg.createSVGPoint();
    p.x = clientX; p.y = clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }
  const followBox = document.getElementById("mg-follow");
  // The box around elements `ids`, in SVG units (null if none is drawn).
  function boxOf(ids) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const id of ids) {
      const e = document.getElementById(id);
      if (!e) continue;
      const r = e.getBoundingClientRect();
      const a = toSvg(r.left, r.top), b = toSvg(r.right, r.bottom);
      x0 = Math.min(x0, a.x, b.x); y0 = Math.min(y0, a.y, b.y);
      x1 = Math.max(x1, a.x, b.x); y1 = Math.max(y1, a.y, b.y);
    }
    return x0 === Infinity ? null : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }
  const READABLE = 0.45, LARGEST = 1.0;  // screen px per SVG unit: smallest worth keeping, 1:1
  // Keep the step in sight: the active node, its op and every input it sends a gradient to,
  // all on screen, as large as fits but never past 1:1. A view that already shows them all
  // at a readable size is left alone, so the picture does not jump at every step.
  function follow(ids) {
    if (!svg || !followBox.checked) return;
    const box = boxOf(ids.map(onScreen));
    if (!box) return;
    const p = pane.getBoundingClientRect(), v = view();
    const scale = Math.min(p.width / v.width, p.height / v.height);
    const shown = toSvg(p.left, p.top), shownEnd = toSvg(p.right, p.bottom);
    const inside = box.x >= shown.x && box.y >= shown.y && box.x + box.width <= shownEnd.x &&
                   box.y + box.height <= shownEnd.y;
    if (inside && scale >= READABLE) return;
    const pad = 24;  // screen px around the step
    const target = Math.min(LARGEST, (p.width - 2 * pad) / box.width, (p.height - 2 * pad) / box.height);
    const width = p.width / target, height = p.height / target;
    setView({ x: box.x + box.width / 2 - width / 2, y: box.y + box.height / 2 - height / 2, width, height });
  }
  if (svg) {
    pane.addEventListener("wheel", ev => {
      ev.preventDefault();
      const factor = Math.exp(Math.sign(ev.deltaY) * 0.15), c = toSvg(ev.clientX, ev.clientY), v = view();
      setView({ x: c.x - (c.x - v.x) * factor, y: c.y - (c.y - v.y) * factor,
                width: v.width * factor, height: v.height * factor });
    }, { passive: false });
    let drag = null;
    pane.addEventListener("pointerdown", ev => {
      drag = { start: toSvg(ev.clientX, ev.clientY), x: ev.clientX, y: ev.clientY, target: ev.target };
      pane.classList.add("dragging");
      pane.setPointerCapture(ev.pointerId);
    });
    pane.addEventListener("pointermove", ev => {
      if (!drag) return;
      const now = toSvg(ev.clientX, ev.clientY), v = view();
      setView({ x: v.x - (now.x - drag.start.x), y: v.y - (now.y - drag.start.y), width: v.width, height: v.height });
    });
    const stop = () => { drag = null; pane.classList.remove("dragging"); };
    pane.addEventListener("pointerup", ev => {
      const click = drag && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 5;
      const target = drag && drag.target;
      stop();
      if (click) clicked(target);
    });
    pane.addEventListener("pointercancel", stop);
  }

  document.getElementById("mg-first").onclick = () => go(0);
  document.getElementById("mg-prev").onclick = () => go(current - 1);
  document.getElementById("mg-next").onclick = () => go(current + 1);
  document.getElementById("mg-last").onclick = () => go(steps.length - 1);
  document.getElementById("mg-fit").onclick = fit;
  document.addEventListener("keydown", ev => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const keys = { ArrowRight: () => go(current + 1), ArrowDown: () => go(current + 1),
                   ArrowLeft: () => go(current - 1), ArrowUp: () => go(current - 1),
                   Home: () => go(0), End: () => go(steps.length - 1), f: fit, F: fit };
    if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
  });
  window.micrograd = { go, showView, get view() { return shownView; }, get step() { return current; }, steps: steps.length - 1 };
  render();
})();

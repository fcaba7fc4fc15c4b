/* The rank explorer's controls: board tabs, search, group filters, highlight and scroll.
 * Embedded by analysis/notebook/explorer.py after plotly.js and the boards' data (the
 * JSON script element beside this one). It finds its elements from its own place
 * in the page (document.currentScript), so several explorers can share a page and no id
 * is written into the HTML. Each board's figure is plotly's, built in Python; this only
 * keeps the points of the rows shown, moves them to their new rows and adds the
 * highlight. */
(function (root) {
  "use strict";
  if (!root || root.classList.contains("rx-ready") || !window.Plotly) return;
  const Plotly = window.Plotly;
  const spec = JSON.parse(root.querySelector("script.rx-data").textContent);
  const L = spec.layout;
  const CONFIG = { displayModeBar: false, responsive: true, scrollZoom: false, doubleClick: false };
  const state = { board: 0, hidden: {}, matches: [], focus: 0, query: "", zsMin: 0, zsUnknown: true };
  // per board: row -> the hover's fields [row, model, group, score, rank, interval, tests]
  const info = spec.boards.map((b) => {
    const out = {};
    b.figure.data.forEach((t) => (t.customdata || []).forEach((c) => (out[c[0]] = c)));
    return out;
  });

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  };
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  const title = el("div", "rx-title", spec.title);
  const tabs = el("div", "rx-tabs");
  tabs.setAttribute("role", "tablist");
  const bar = el("div", "rx-bar");
  const find = el("label", "rx-find", "Find a model ");
  const input = el("input", "rx-search");
  input.type = "search";
  input.placeholder = "name or part of it";
  input.autocomplete = "off";
  const list = el("datalist");
  list.id = "rx-models-" + Math.random().toString(36).slice(2); // made here: the HTML stays the same
  input.setAttribute("list", list.id);
  find.appendChild(input);
  const groups = el("div", "rx-groups");
  bar.append(find, list, groups);
  // the zero-shot filter: at least N % (mteb's zero-shot % on the board's tasks), unknown or not
  const zs = el("label", "rx-zs", "zero-shot ≥ ");
  const zsMin = el("input", "rx-zs-min");
  Object.assign(zsMin, { type: "number", min: 0, max: 100, step: 1, value: 0 });
  const zsUnknown = el("input", "rx-zs-unknown");
  Object.assign(zsUnknown, { type: "checkbox", checked: true });
  zs.append(zsMin, " % ", zsUnknown, " unknown");
  if (spec.zeroShot) bar.appendChild(zs);
  zsMin.addEventListener("input", () => {
    state.zsMin = Number(zsMin.value) || 0;
    update(true, false);
  });
  zsUnknown.addEventListener("change", () => {
    state.zsUnknown = zsUnknown.checked;
    update(true, false);
  });
  const status = el("div", "rx-status");
  status.setAttribute("aria-live", "polite");
  const caption = el("div", "rx-caption");
  const scroll = el("div", "rx-scroll");
  const plot = el("div", "rx-plot");
  scroll.appendChild(plot);
  root.append(title, tabs, bar, status, caption, scroll);

  const tabButtons = spec.boards.map((b, i) => {
    const button = el("button", "rx-tab", b.name + " · " + b.models.length);
    button.type = "button";
    button.setAttribute("role", "tab");
    button.dataset.board = b.name;
    button.addEventListener("click", () => {
      state.board = i;
      search(input.value, false);
      update(true, false);
    });
    tabs.appendChild(button);
    return button;
  });
  const boxes = spec.groups.map(([group, color]) => {
    const label = el("label");
    const box = el("input");
    box.type = "checkbox";
    box.checked = true;
    box.value = group;
    box.addEventListener("change", () => {
      state.hidden[group] = !box.checked;
      update(true, false);
    });
    const swatch = el("span", "rx-swatch");
    swatch.style.background = color;
    const text = el("span");
    label.append(box, swatch, text);
    groups.appendChild(label);
    return { group, text };
  });

  function board() {
    return spec.boards[state.board];
  }

  function search(query, fresh) {
    const q = query.trim().toLowerCase();
    if (fresh || q !== state.query) state.focus = 0;
    state.query = q;
    state.matches = [];
    if (!q) return;
    const exact = [];
    const part = [];
    board().models.forEach((m, i) => {
      const full = m[0].toLowerCase();
      if (full === q || m[1].toLowerCase() === q) exact.push(i);
      else if (full.includes(q)) part.push(i);
    });
    state.matches = exact.length ? exact : part;
    if (state.focus >= state.matches.length) state.focus = 0;
  }

  function describe(i, hit) {
    const m = board().models[i];
    const c = info[state.board][i];
    return (
      (hit ? '<b class="rx-hit">' : "<b>") + esc(m[0]) + "</b>: rank " + c[4] + ", interval " + c[5] + ", score " + c[3] +
      " (" + esc(c[2]) + ")"
    );
  }

  function explain() {
    const b = board();
    const n = state.matches.length;
    if (n) {
      const which = n > 1 ? (state.focus + 1) + " of " + n + " matches (Enter: next): " : "";
      return which + describe(state.matches[state.focus], true);
    }
    const own = b.models.map((m, i) => (m[3] ? i : -1)).filter((i) => i >= 0);
    if (!state.query) return own.length ? "Your runs: " + own.map((i) => describe(i, false)).join("; ") : "";
    const q = state.query;
    const names = Object.keys(b.unranked);
    const hit = names.find((m) => m.toLowerCase() === q || m.split("/").pop().toLowerCase() === q)
      || (names.filter((m) => m.toLowerCase().includes(q)).length === 1
        ? names.find((m) => m.toLowerCase().includes(q)) : undefined);
    const elsewhere = spec.boards
      .filter((o) => o !== b && o.models.some((m) => m[0].toLowerCase().includes(q)))
      .map((o) => o.name);
    const there = elsewhere.length ? " Ranked on: " + elsewhere.map(esc).join(", ") + "." : "";
    if (hit) {
      return "<b>" + esc(hit) + "</b> is not ranked on " + esc(b.name) + ": it " +
        esc(b.unranked[hit]) + " (only models with a score on every task get a rank)." + there;
    }
    return "No model ranked on " + esc(b.name) + " matches “" + esc(state.query) + "”." + there;
  }

  function update(scrollTo, scrollPage) {
    const b = board();
    const models = b.models;
    const found = new Set(state.matches);
    const focus = state.matches.length ? state.matches[state.focus] : -1;
    const pos = {};
    let rows = 0;
    const shot = (i) => {
      const z = spec.zeroShot ? b.zeroShot[i] : null;
      return z === null || z === undefined ? state.zsUnknown || !spec.zeroShot : z >= state.zsMin;
    };
    models.forEach((m, i) => {
      if ((!state.hidden[m[2]] && shot(i)) || m[3] || found.has(i)) pos[i] = rows++;
    });
    const data = b.figure.data.map((t) => {
      const keep = [];
      t.customdata.forEach((c, k) => {
        if (c[0] in pos) keep.push(k);
      });
      const pick = (a) => (a ? keep.map((k) => a[k]) : a);
      const out = Object.assign({}, t, {
        x: pick(t.x),
        y: keep.map((k) => pos[t.customdata[k][0]]),
        customdata: pick(t.customdata),
      });
      if (t.error_x) {
        out.error_x = Object.assign({}, t.error_x, {
          array: pick(t.error_x.array),
          arrayminus: pick(t.error_x.arrayminus),
        });
      }
      return out;
    });
    const shown = state.matches.filter((i) => i in pos);
    data.push({
      type: "scatter",
      mode: "markers",
      name: "found",
      x: shown.map((i) => models[i][5]),
      y: shown.map((i) => pos[i]),
      marker: { symbol: "circle-open", size: 15, color: spec.colors.found, line: { width: 2.5 } },
      hoverinfo: "skip",
      showlegend: false,
    });
    const order = Object.keys(pos).map(Number).sort((a, c) => pos[a] - pos[c]);
    const ticktext = order.map((i) => {
      const m = models[i];
      const name = esc(m[1]);
      if (found.has(i)) return '<b><span style="color:' + spec.colors.found + '">' + name + "</span></b>";
      return m[3] || m[4] ? "<b>" + name + "</b>" : name;
    });
    const shapes = shown.map((i) => ({
      type: "rect",
      xref: "paper",
      x0: 0,
      x1: 1,
      yref: "y",
      y0: pos[i] - 0.5,
      y1: pos[i] + 0.5,
      fillcolor: i === focus ? "rgba(213,94,0,0.22)" : "rgba(213,94,0,0.09)",
      line: { width: 0 },
      layer: "below",
    }));
    const layout = Object.assign({}, b.figure.layout, {
      autosize: true,
      height: L.top + L.bottom + L.row * Math.max(rows, 1),
      shapes: shapes,
      yaxis: Object.assign({}, b.figure.layout.yaxis, {
        range: [rows - 0.5, -0.5],
        tickvals: order.map((_, k) => k),
        ticktext: ticktext,
      }),
    });
    tabButtons.forEach((t, i) => t.setAttribute("aria-selected", String(i === state.board)));
    boxes.forEach(({ group, text }) => {
      text.textContent = group + " (" + models.filter((m) => m[2] === group).length + ")";
    });
    list.replaceChildren(
      ...models.map((m) => m[0]).concat(Object.keys(b.unranked)).map((m) => {
        const option = el("option");
        option.value = m;
        return option;
      })
    );
    const own = models.some((m) => m[3]) ? " Your runs (black diamonds) and found models are always shown." : "";
    caption.textContent = b.caption + " " + rows + " of " + models.length + " shown." + own;
    status.innerHTML = explain();
    root.dataset.board = b.name;
    root.dataset.found = focus >= 0 ? models[focus][0] : "";
    root.dataset.matches = String(state.matches.length);
    root.dataset.shown = String(rows);
    return Promise.resolve(Plotly.react(plot, data, layout, CONFIG)).then(() => {
      if (!scrollTo || focus < 0) return;
      const y = L.top + (pos[focus] + 0.5) * L.row;
      scroll.scrollTop = Math.max(0, y - scroll.clientHeight / 2);
      if (scrollPage) root.scrollIntoView({ block: "nearest" });
    });
  }

  input.addEventListener("input", () => {
    search(input.value, true);
    update(true, true);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    if (state.matches.length > 1) state.focus = (state.focus + 1) % state.matches.length;
    update(true, true);
  });
  if (window.ResizeObserver) {
    let width = 0;
    new ResizeObserver(() => {
      if (scroll.clientWidth && scroll.clientWidth !== width) {
        width = scroll.clientWidth;
        Promise.resolve(Plotly.Plots.resize(plot)).catch(() => {});
      }
    }).observe(scroll);
  }
  root.classList.add("rx-ready");
  if (spec.found) {
    input.value = spec.found;
    search(spec.found, true);
  }
  update(true, false);
})(document.currentScript && document.currentScript.closest(".rank-explorer"));

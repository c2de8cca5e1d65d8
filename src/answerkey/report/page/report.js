// answerkey's HTML report. Every text from the run is shown with textContent: nothing from
// the data ever becomes markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("answerkey-data").textContent);
  const items = data.items;
  const headers = items.columns.map((column) => column.header);
  const verdictColumn = headers.indexOf("verdict");
  const state = { rows: [], page: 0, sort: -1, descending: false, filters: {}, search: "", warnings: "" };
  const searchText = [];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function shown(value, format) {
    if (value === null || value === undefined) return "";
    if (typeof value === "number" && (format === "ratio" || format === "points")) {
      return value.toFixed(format === "ratio" ? data.decimals.ratio : data.decimals.points);
    }
    return String(value);
  }

  // Verdicts are coloured by a class named after them; other text is not a class name.
  function colour(node, verdict) {
    if (/^[a-z_]+$/.test(verdict)) node.classList.add("verdict-" + verdict);
  }

  function isNumeric(format) {
    return format === "ratio" || format === "points" || format === "integer" || format === "number";
  }

  // Tabs.
  const views = { overview: "Overview", items: "Items", sheets: "Statistics and sheets" };
  const tabs = document.getElementById("tabs");
  function show(name) {
    for (const view of ["overview", "items", "detail", "sheets"]) {
      document.getElementById(view + "-view").hidden = view !== name;
    }
    for (const button of tabs.children) button.classList.toggle("active", button.dataset.view === name);
  }
  for (const [name, label] of Object.entries(views)) {
    const button = el("button", "", label);
    button.type = "button";
    button.dataset.view = name;
    button.id = "tab-" + name;
    button.addEventListener("click", () => show(name));
    tabs.appendChild(button);
  }

  // Overview: headline figures, charts, signature, inputs, warnings.
  function overview() {
    const view = document.getElementById("overview-view");
    document.getElementById("title").textContent = data.title;
    document.getElementById("command").textContent = data.command;
    view.appendChild(el("h2", "", "Headline figures (95% intervals)"));
    const figures = el("div", "figures");
    for (const figure of data.headline) {
      const box = el("div", "figure");
      box.appendChild(el("div", "name", figure.name));
      box.appendChild(el("div", "value", figure.value.toFixed(data.decimals.ratio)));
      const interval = figure.low === null ? "no interval (one value)" : "[" + figure.low.toFixed(data.decimals.ratio) + ", " + figure.high.toFixed(data.decimals.ratio) + "]";
      box.appendChild(el("div", "ci", interval));
      const how = {Wilson: "Wilson score interval", bootstrap: "paired bootstrap interval"}[figure.method] || "mean ± 1.96 standard errors";
      box.appendChild(el("div", "how", how + ", n = " + figure.n));
      figures.appendChild(box);
    }
    if (!data.headline.length) figures.appendChild(el("p", "empty", "No headline figure."));
    view.appendChild(figures);
    for (const sheet of data.sheets) for (const chart of sheet.charts) view.appendChild(barChart(sheet, chart));
    if (Object.keys(semanticsColumns).length > 1) view.appendChild(semanticsChart());
    for (const chart of data.count_charts) view.appendChild(countChart(chart));
    view.appendChild(el("h2", "", "Signature"));
    view.appendChild(el("p", "mono", data.signature));
    view.appendChild(el("p", "", "Report written " + data.written + "."));
    view.appendChild(el("h2", "", "Inputs"));
    const table = el("table");
    table.appendChild(row("th", ["input", "path", "kind", "bytes", "SHA-256"]));
    for (const input of data.inputs) {
      table.appendChild(row("td", [input.name, input.path, input.kind, input.size, input.sha256]));
    }
    view.appendChild(table);
    view.appendChild(el("h2", "", "Warnings (" + data.warnings.length + ")"));
    const list = el("ul");
    for (const warning of data.warnings.slice(0, 200)) list.appendChild(el("li", "warning", warning));
    if (data.warnings.length > 200) list.appendChild(el("li", "", "… and " + (data.warnings.length - 200) + " more (all are in the JSON report)"));
    view.appendChild(list);
  }

  // With a verdict per semantics (sql): the share correct under each, and how often they disagree.
  function semanticsChart() {
    const box = el("div", "chart");
    box.id = "semantics-chart";
    box.appendChild(el("h2", "", "Correct under each semantics"));
    const columns = Object.keys(semanticsColumns).map((header) => headers.indexOf(header));
    for (const column of columns) {
      let correct = 0;
      let decided = 0;
      for (const values of items.rows) {
        if (values[column] === "correct" || values[column] === "incorrect") decided++;
        if (values[column] === "correct") correct++;
      }
      const line = el("div", "bar-row");
      line.appendChild(el("span", "bar-label", headers[column]));
      const track = el("div");
      const bar = el("div", "bar");
      bar.style.width = (decided ? (100 * correct) / decided : 0) + "%";
      track.appendChild(bar);
      line.appendChild(track);
      line.appendChild(el("span", "", correct + " / " + decided));
      box.appendChild(line);
    }
    let disagree = 0;
    for (const values of items.rows) {
      const seen = new Set(columns.map((column) => values[column]).filter((value) => value !== null));
      if (seen.size > 1) disagree++;
    }
    box.appendChild(el("p", "", "The semantics disagree on " + disagree + " of " + items.rows.length + " items."));
    return box;
  }

  // A chart of counts as inline SVG, drawn here: a label line above each bar, the count and
  // the total after it, groups under their titles. Text goes in with textContent only.
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function countChart(chart) {
    const figure = el("figure", "count-chart");
    figure.id = chart.name;
    figure.appendChild(el("h2", "", chart.title));
    const width = 900;
    const barWidth = 640;
    let y = 4;
    const picture = svg("svg", { role: "img", "aria-labelledby": chart.name + "-title " + chart.name + "-desc", width: width });
    picture.appendChild(svg("title", { id: chart.name + "-title" }, chart.title));
    picture.appendChild(svg("desc", { id: chart.name + "-desc" }, chart.description));
    for (const [title, bars] of chart.groups) {
      y += 18;
      picture.appendChild(svg("text", { x: 0, y: y, class: "group" }, title));
      for (const [label, count] of bars) {
        const bar = svg("g", { class: "bar-item" });
        y += 18;
        bar.appendChild(svg("text", { x: 12, y: y, class: "label" }, label));
        const length = chart.total ? Math.round((barWidth * count) / chart.total) : 0;
        bar.appendChild(svg("rect", { x: 12, y: y + 5, width: Math.max(length, 1), height: 12, class: "bar-shape" }));
        bar.appendChild(svg("text", { x: 20 + length, y: y + 15, class: "count" }, count + " / " + chart.total));
        picture.appendChild(bar);
        y += 16;
      }
    }
    picture.setAttribute("height", y + 8);
    picture.setAttribute("viewBox", "0 0 " + width + " " + (y + 8));
    figure.appendChild(picture);
    figure.appendChild(el("figcaption", "", chart.description));
    return figure;
  }

  // Both results of an item aligned: canonical (gold) columns, the line's status, system
  // (predicted) columns; the rows the comparator matched on one line, missing, extra and
  // out-of-tolerance cells marked by class; and the column mapping above.
  const STATUS_WORDS = { matched: "matched", missing: "missing", extra: "extra", different: "out of tolerance" };
  function alignedView(aligned) {
    const box = el("div", "aligned");
    const [left, right] = aligned.sides;
    box.appendChild(el("h3", "", "Both results aligned"));
    const counts = aligned.counts;
    box.appendChild(el("p", "aligned-counts", left + ": " + plural(aligned.rows[0], "row") + "; " + right + ": " +
      plural(aligned.rows[1], "row") + "; lines: " + counts.matched + " matched, " + counts.missing + " missing, " +
      counts.extra + " extra, " + counts.different + " out of tolerance."));
    const mapping = el("ul", "mapping");
    mapping.id = "mapping";
    aligned.mapping.forEach((target, column) => {
      mapping.appendChild(el("li", "", left + " column " + (column + 1) + " (" + aligned.columns[0][column] + ") → " +
        right + " column " + (target + 1) + " (" + aligned.columns[1][target] + ")"));
    });
    if (aligned.mapping.length) {
      box.appendChild(el("h4", "", "Column mapping"));
      box.appendChild(mapping);
    }
    const mapped = new Set(aligned.mapping);
    const table = el("table");
    table.id = "aligned";
    const head = el("thead");
    const sides = el("tr");
    const leftHead = el("th", "", left);
    leftHead.colSpan = Math.max(1, aligned.columns[0].length);
    const rightHead = el("th", "", right);
    rightHead.colSpan = Math.max(1, aligned.columns[1].length);
    sides.append(leftHead, el("th", "", ""), rightHead);
    const names = el("tr");
    for (const name of aligned.columns[0]) names.appendChild(el("th", "", name));
    if (!aligned.columns[0].length) names.appendChild(el("th"));
    names.appendChild(el("th", "", "line"));
    aligned.columns[1].forEach((name, column) => {
      const th = el("th", mapped.has(column) ? "" : "unmapped", name);
      if (!mapped.has(column)) th.title = "not mapped to a " + left + " column";
      names.appendChild(th);
    });
    if (!aligned.columns[1].length) names.appendChild(el("th"));
    head.append(sides, names);
    table.appendChild(head);
    const body = el("tbody");
    for (const line of aligned.lines) {
      const tr = el("tr", "line-" + (STATUS_WORDS[line.status] ? line.status : "other"));
      const off = new Set(line.off);
      const width = [Math.max(1, aligned.columns[0].length), Math.max(1, aligned.columns[1].length)];
      for (let column = 0; column < width[0]; column++) {
        const td = el("td", "gold-cell", line.canonical === null ? "" : line.canonical[column]);
        if (line.canonical !== null && off.has(aligned.mapping[column])) td.classList.add("off");
        tr.appendChild(td);
      }
      tr.appendChild(el("td", "status", STATUS_WORDS[line.status] || line.status));
      for (let column = 0; column < width[1]; column++) {
        const td = el("td", "system-cell", line.system === null ? "" : line.system[column]);
        if (off.has(column)) td.classList.add("off");
        if (!mapped.has(column)) td.classList.add("unmapped");
        tr.appendChild(td);
      }
      if (line.canonical === null && line.status === "matched") tr.title = "matches a " + left + " row on another line";
      if (line.system === null && line.status === "matched") tr.title = "matches a " + right + " row on another line";
      body.appendChild(tr);
    }
    table.appendChild(body);
    const scroll = el("div", "scroll");
    scroll.appendChild(table);
    box.appendChild(scroll);
    if (aligned.left_out) {
      box.appendChild(el("p", "cut-note", "… and " + aligned.left_out + " more lines (the view shows the first " + aligned.shown + ")"));
    }
    return box;
  }

  function plural(count, noun) {
    return count + " " + noun + (count === 1 ? "" : "s");
  }

  function row(cellTag, values) {
    const tr = el("tr");
    for (const value of values) tr.appendChild(el(cellTag, "", value));
    return tr;
  }

  function barChart(sheet, chart) {
    const box = el("div", "chart");
    box.appendChild(el("h2", "", chart.title));
    for (const column of chart.values) {
      for (let index = chart.first; index <= chart.last && index < sheet.rows.length; index++) {
        const values = sheet.rows[index];
        const value = values[column];
        const line = el("div", "bar-row");
        // Several series over labelled rows: each bar names its row and its series.
        const series = chart.values.length > 1 ? ": " + sheet.columns[column].header : "";
        line.appendChild(el("span", "bar-label", chart.labels === null ? sheet.columns[column].header : values[chart.labels] + series));
        const track = el("div");
        const bar = el("div", "bar");
        bar.style.width = (typeof value === "number" ? Math.max(0, Math.min(1, value)) * 100 : 0) + "%";
        track.appendChild(bar);
        line.appendChild(track);
        line.appendChild(el("span", "", shown(value, sheet.columns[column].format)));
        box.appendChild(line);
      }
    }
    return box;
  }

  // Items: filters for the columns with few distinct values (and empty / not empty for the
  // others that are sometimes empty), a search over every column, sorting, pages.
  function filters() {
    const selects = document.getElementById("selects");
    headers.forEach((header, column) => {
      if (header === "id") return;
      const values = new Map();
      let empty = 0;
      for (const values_ of items.rows) {
        const value = values_[column];
        if (value === null || value === "") empty++;
        else for (const label of labels(column, value)) if (values.size <= 40) values.set(label, (values.get(label) || 0) + 1);
      }
      // A value list only for short labels that repeat (verdicts, databases, tags, difficulty).
      const short = [...values.keys()].every((value) => value.length <= 40);
      const few = short && values.size <= 40 && (values.size <= 5 || values.size * 2 <= items.rows.length);
      if (isNumeric(items.columns[column].format) || (!few && empty === 0) || empty === items.rows.length) return;
      const label = el("label", "", header + " ");
      const select = el("select");
      select.id = "filter-" + column;
      select.dataset.column = String(column);
      select.appendChild(option("", "(all)"));
      // Values are "=" and the label; "empty" and "filled" cannot be mistaken for one.
      if (empty) select.appendChild(option("empty", "(empty)"));
      if (empty) select.appendChild(option("filled", "(not empty)"));
      if (few) for (const [value, count] of [...values].sort()) select.appendChild(option("=" + value, value + " (" + count + ")"));
      select.addEventListener("change", () => {
        state.filters[column] = select.value;
        state.page = 0;
        refresh();
      });
      label.appendChild(select);
      selects.appendChild(label);
    });
  }

  // A tags cell ("a, b") is filtered by each tag; any other cell by its whole value.
  const tagsColumn = headers.indexOf("tags");
  function labels(column, value) {
    return column === tagsColumn ? String(value).split(", ") : [String(value)];
  }

  // The warnings that name an item ("...: item ID: ..."), counted by id.
  const warned = new Map();
  for (const warning of data.warnings) {
    const match = /: item (.+?): /.exec(warning);
    if (match) warned.set(match[1], (warned.get(match[1]) || 0) + 1);
  }
  const idColumn = headers.indexOf("id");

  function warningFilter() {
    if (!warned.size || idColumn < 0) return;
    const label = el("label", "", "warnings ");
    const select = el("select");
    select.id = "filter-warnings";
    select.appendChild(option("", "(all)"));
    select.appendChild(option("with", "with a warning"));
    select.appendChild(option("without", "without"));
    select.addEventListener("change", () => {
      state.warnings = select.value;
      state.page = 0;
      refresh();
    });
    label.appendChild(select);
    document.getElementById("selects").appendChild(label);
  }

  function option(value, text) {
    const node = el("option", "", text);
    node.value = value;
    return node;
  }

  function matches(index) {
    const values = items.rows[index];
    for (const [column, wanted] of Object.entries(state.filters)) {
      if (!wanted) continue;
      const value = values[column];
      const isEmpty = value === null || value === "";
      if (wanted === "empty") {
        if (!isEmpty) return false;
      } else if (wanted === "filled") {
        if (isEmpty) return false;
      } else if (isEmpty || !labels(Number(column), value).includes(wanted.slice(1))) {
        return false;
      }
    }
    if (state.warnings) {
      const has = warned.has(shown(values[idColumn], ""));
      if (state.warnings === "with" ? !has : has) return false;
    }
    if (state.search) {
      if (searchText[index] === undefined) searchText[index] = values.map((value) => shown(value, "")).join("\u0001").toLowerCase();
      if (!searchText[index].includes(state.search)) return false;
    }
    return true;
  }

  function refresh() {
    const rows = [];
    for (let index = 0; index < items.rows.length; index++) if (matches(index)) rows.push(index);
    if (state.sort >= 0) {
      const column = state.sort;
      const sign = state.descending ? -1 : 1;
      rows.sort((a, b) => {
        const x = items.rows[a][column];
        const y = items.rows[b][column];
        if (x === y) return a - b;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    state.rows = rows;
    render();
  }

  function render() {
    const body = document.querySelector("#items tbody");
    body.replaceChildren();
    const pages = Math.max(1, Math.ceil(state.rows.length / data.page_rows));
    state.page = Math.min(state.page, pages - 1);
    const first = state.page * data.page_rows;
    for (const index of state.rows.slice(first, first + data.page_rows)) {
      const tr = el("tr");
      tr.dataset.index = String(index);
      items.rows[index].forEach((value, column) => {
        const format = items.columns[column].format;
        const text = shown(value, format);
        const td = el("td", isNumeric(format) ? "number" : "cut", text.split("\n")[0]);
        if (column === verdictColumn || headers[column] in semanticsColumns) colour(td, text);
        td.title = text.length > 200 ? text.slice(0, 200) + "…" : text;
        tr.appendChild(td);
      });
      tr.addEventListener("click", () => detail(index));
      body.appendChild(tr);
    }
    document.getElementById("count").textContent = state.rows.length + " of " + items.rows.length + " items";
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("previous").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
  }

  // Columns whose values are verdicts (one per semantics in `sql`): coloured like the verdict.
  const semanticsColumns = {};
  headers.forEach((header, column) => {
    if (column === verdictColumn) return;
    const verdicts = ["correct", "incorrect", "error"];
    if (items.rows.some((values) => values[column] !== null) && items.rows.every((values) => values[column] === null || verdicts.includes(values[column]))) {
      semanticsColumns[header] = true;
    }
  });

  function itemsTable() {
    const head = document.querySelector("#items thead");
    const tr = el("tr");
    headers.forEach((header, column) => {
      const th = el("th", "", header);
      th.addEventListener("click", () => {
        state.descending = state.sort === column ? !state.descending : false;
        state.sort = column;
        for (const cell of tr.children) cell.classList.remove("sorted-up", "sorted-down");
        th.classList.add(state.descending ? "sorted-down" : "sorted-up");
        refresh();
      });
      tr.appendChild(th);
    });
    head.appendChild(tr);
    const search = document.getElementById("search");
    search.addEventListener("input", () => {
      state.search = search.value.toLowerCase();
      state.page = 0;
      refresh();
    });
    document.getElementById("previous").addEventListener("click", () => { state.page--; render(); });
    document.getElementById("next").addEventListener("click", () => { state.page++; render(); });
    filters();
    warningFilter();
    refresh();
  }

  // One item: the pairs of columns side by side (gold and predicted SQL, canonical and system
  // answer), the verdict under each semantics, then every other column.
  function detail(index) {
    const view = document.getElementById("detail-view");
    view.replaceChildren();
    const values = items.rows[index];
    const back = el("button", "", "← back to the items");
    back.type = "button";
    back.id = "back";
    back.addEventListener("click", () => show("items"));
    view.appendChild(back);
    view.appendChild(el("h2", "", "Item " + shown(values[headers.indexOf("id")], "")));
    const done = new Set();
    for (const [left, right] of data.side_by_side) {
      const a = headers.indexOf(left);
      const b = headers.indexOf(right);
      if (a < 0 || b < 0 || done.has(a) || done.has(b)) continue;
      const pair = el("div", "pair");
      for (const column of [a, b]) {
        const side = el("div");
        side.appendChild(el("h3", "", headers[column]));
        side.appendChild(values[column] === null ? el("p", "empty", "(none)") : el("pre", "", shown(values[column], "")));
        pair.appendChild(side);
        done.add(column);
      }
      view.appendChild(pair);
    }
    const aligned = data.details[index];
    if (aligned) view.appendChild(alignedView(aligned));
    const verdicts = Object.keys(semanticsColumns).map((header) => headers.indexOf(header));
    if (verdicts.length) {
      const table = el("table");
      table.appendChild(row("th", verdicts.map((column) => headers[column])));
      const tr = row("td", verdicts.map((column) => shown(values[column], "")));
      [...tr.children].forEach((td) => colour(td, td.textContent));
      table.appendChild(tr);
      view.appendChild(el("h3", "", "Verdict under each semantics"));
      view.appendChild(table);
      for (const column of verdicts) done.add(column);
    }
    // The warnings that name this item (a suspect gold, a problem of its line).
    const id = shown(values[headers.indexOf("id")], "");
    const own = data.warnings.filter((warning) => warning.includes(": item " + id + ":"));
    if (own.length) {
      view.appendChild(el("h3", "", "Warnings"));
      const list = el("ul");
      list.id = "item-warnings";
      for (const warning of own) list.appendChild(el("li", "warning", warning));
      view.appendChild(list);
    }
    const table = el("table");
    table.className = "fields";
    headers.forEach((header, column) => {
      if (done.has(column)) return;
      const tr = el("tr");
      tr.appendChild(el("th", "", header));
      const td = el("td");
      const text = shown(values[column], items.columns[column].format);
      if (text.includes("\n") || text.length > 80) td.appendChild(el("pre", "", text));
      else td.textContent = text;
      if (column === verdictColumn) colour(td, text);
      tr.appendChild(td);
      table.appendChild(tr);
    });
    view.appendChild(table);
    show("detail");
    window.scrollTo(0, 0);
  }

  // Statistics and the task sheets as tables.
  function sheets() {
    const view = document.getElementById("sheets-view");
    for (const sheet of data.sheets) {
      view.appendChild(el("h2", "", sheet.name));
      const table = el("table");
      table.appendChild(row("th", sheet.columns.map((column) => column.header)));
      for (const values of sheet.rows) {
        const tr = el("tr");
        values.forEach((value, column) => {
          const format = sheet.columns[column].format;
          const td = el("td", isNumeric(format) ? "number" : "", shown(value, format));
          tr.appendChild(td);
        });
        table.appendChild(tr);
      }
      const scroll = el("div", "scroll");
      scroll.appendChild(table);
      view.appendChild(scroll);
      for (const [label, value] of sheet.notes) view.appendChild(el("p", "mono", label + ": " + shown(value, "")));
    }
  }

  overview();
  itemsTable();
  sheets();
  show("overview");
})();

#include "server/admin/status_page.hpp"

namespace spindle::server {

namespace {

// Everything the page needs is here: the script reads /threads (same origin) once a second,
// keeps one table row per slot and only ever writes text (textContent), never markup, so a
// request URI cannot inject anything.
constexpr std::string_view page = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spindle status</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .6em; }
#summary span { margin-right: 1.6em; }
#error { color: #b00; min-height: 1.4em; }
table { border-collapse: collapse; margin-top: .4em; }
th, td { padding: .25em .7em; text-align: left; border-bottom: 1px solid #ddd; white-space: nowrap; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.request { max-width: 40em; overflow: hidden; text-overflow: ellipsis; }
td.state { font-weight: 600; }
tr[data-state="ready"] td.state { color: #070; }
tr[data-state="busy"] td.state { color: #a60; }
tr[data-state="booting"] td.state, tr[data-state="restarting"] td.state { color: #06c; }
tr[data-state="draining"] td.state, tr[data-state="done"] td.state { color: #777; }
.no { color: #b00; }
</style>
</head>
<body>
<h1>Spindle</h1>
<div id="summary">
<span>Ready: <b id="ready">-</b></span>
<span>Threads: <b id="total">-</b> of <b id="max_threads">-</b></span>
<span>Busy: <b id="busy">-</b></span>
<span>Queued: <b id="queued">-</b></span>
<span>Requests/s: <b id="rate">-</b></span>
<span>Updates: <b id="updates">0</b></span>
<span>Spindle <b id="version">-</b>, PHP <b id="php_version">-</b></span>
</div>
<div id="error"></div>
<table>
<thead><tr><th>#</th><th>Group</th><th>State</th><th>Requests</th><th>Req/s</th><th>Boots</th>
<th>Crashes</th><th>Restarts</th><th>Memory (MiB)</th><th>Client</th><th>Request</th>
<th>Running (ms)</th>
</tr></thead>
<tbody id="slots"></tbody>
</table>
<p><a href="metrics">metrics</a> &middot; <a href="threads">threads (JSON)</a> &middot;
<a href="readyz">readyz</a> &middot; <a href="healthz">healthz</a></p>
<script>
"use strict";
(function () {
  const columns = ["index", "group", "state", "requests", "rate", "boots", "crashes", "restarts",
                   "memory", "client", "request", "running"];
  const numeric = new Set(["index", "requests", "rate", "boots", "crashes", "restarts", "memory",
                           "running"]);
  const rows = new Map();
  let previous = null;
  let updates = 0;

  function rowFor(index) {
    let tr = rows.get(index);
    if (!tr) {
      tr = document.createElement("tr");
      tr.id = "slot-" + index;
      for (const name of columns) {
        const td = document.createElement("td");
        td.className = numeric.has(name) ? name + " num" : name;
        tr.appendChild(td);
      }
      document.getElementById("slots").appendChild(tr);
      rows.set(index, tr);
    }
    return tr;
  }

  function setText(element, text) {
    if (element.textContent !== text) {
      element.textContent = text;
    }
  }

  // A thread's key: its slot, or PROCESS.SLOT when the supervisor of several processes merged
  // their threads (each process numbers its own slots).
  function keyOf(t) {
    return t.process ? t.process + "." + t.index : String(t.index);
  }

  function render(data) {
    const elapsed = previous ? data.time - previous.time : 0;
    const before = new Map();
    if (previous) {
      for (const t of previous.threads) {
        before.set(keyOf(t), t.requests);
      }
    }
    let total = 0;
    for (const t of data.threads) {
      const key = keyOf(t);
      const tr = rowFor(key);
      tr.dataset.state = t.state;
      const rate = elapsed > 0 && before.has(key)
        ? Math.max(0, t.requests - before.get(key)) / elapsed : 0;
      total += rate;
      const cells = tr.children;
      setText(cells[0], key);
      setText(cells[1], t.group);
      setText(cells[2], t.state);
      setText(cells[3], String(t.requests));
      setText(cells[4], rate.toFixed(1));
      setText(cells[5], String(t.boots));
      setText(cells[6], String(t.crashes));
      setText(cells[7], String(t.restarts));
      setText(cells[8], (t.memory_bytes / 1048576).toFixed(1));
      setText(cells[9], t.request ? t.request.client : "");
      setText(cells[10], t.request ? t.request.method + " " + t.request.uri : "");
      setText(cells[11], t.request ? t.request.running_ms.toFixed(0) : "");
    }
    let queued = 0;
    for (const g of data.groups) {
      queued += g.queued;
    }
    const ready = document.getElementById("ready");
    setText(ready, data.ready ? "yes" : "no (" + data.reason + ")");
    ready.className = data.ready ? "" : "no";
    setText(document.getElementById("total"), String(data.total));
    setText(document.getElementById("max_threads"), String(data.max_threads));
    setText(document.getElementById("busy"), String(data.busy));
    setText(document.getElementById("queued"), String(queued));
    setText(document.getElementById("rate"), total.toFixed(1));
    setText(document.getElementById("updates"), String(++updates));
    setText(document.getElementById("version"), data.version);
    setText(document.getElementById("php_version"), data.php_version);
    setText(document.getElementById("error"), "");
    previous = data;
  }

  function poll() {
    fetch("threads", {cache: "no-store"})
      .then(function (response) {
        if (!response.ok) {
          throw new Error("GET /threads answered " + response.status);
        }
        return response.json();
      })
      .then(render)
      .catch(function (error) {
        setText(document.getElementById("error"), "cannot update: " + error.message);
      })
      .finally(function () {
        setTimeout(poll, 1000);
      });
  }
  poll();
})();
</script>
</body>
</html>
)html";

}  // namespace

std::string_view status_page_html() noexcept {
    return page;
}

}  // namespace spindle::server

// Keyboard navigation (j/k select, enter opens, u opens the revert page),
// the diffs of files fetched as they are opened or come into view, and live
// updates (a server-sent event per new journal event).
(function () {
  "use strict";
  var rows = [];
  var at = -1;
  function hook(r) {
    r.addEventListener("click", function (e) {
      if (e.target.tagName !== "A") location.href = r.dataset.href;
    });
  }
  function bind() {
    rows = Array.prototype.slice.call(document.querySelectorAll(".ev[data-href]"));
    at = -1;
    rows.forEach(hook);
  }
  bind();
  function select(i) {
    if (!rows.length) return;
    if (at >= 0) rows[at].classList.remove("sel");
    at = Math.max(0, Math.min(rows.length - 1, i));
    rows[at].classList.add("sel");
    rows[at].scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.metaKey || e.ctrlKey || e.altKey) return;
    if (e.key === "j") select(at + 1);
    else if (e.key === "k") select(at - 1);
    else if (e.key === "Enter" && at >= 0) location.href = rows[at].dataset.href;
    else if (e.key === "u") {
      var href = at >= 0 ? rows[at].dataset.href : null;
      var rv = document.getElementById("revert");
      if (href) location.href = href + "/revert";
      else if (rv) location.href = rv.getAttribute("href");
    }
  });
  // A file's diff not on the page is fetched when its entry is opened (a
  // large file's starts folded) or comes into view (the others): the page
  // that shows it alone is fetched and its diff moved in.
  function load(lazy) {
    if (lazy.dataset.loading || !lazy.parentNode) return;
    lazy.dataset.loading = "1";
    lazy.textContent = "Loading the diff…";
    fetch(lazy.dataset.src, { headers: { "Accept": "text/html" } }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var body = doc.querySelector("details.file .scroll") || doc.querySelector("details.file .summary") || doc.querySelector("main");
      if (body && lazy.parentNode) lazy.parentNode.replaceChild(document.importNode(body, true), lazy);
    }, function () {
      delete lazy.dataset.loading;
      lazy.textContent = "The diff could not be loaded: open the file's entry again.";
    });
  }
  var inView = window.IntersectionObserver && new IntersectionObserver(function (entries) {
    entries.forEach(function (en) {
      if (en.isIntersecting && en.target.closest("details").open) load(en.target);
    });
  }, { rootMargin: "600px 0px" });
  var files = Array.prototype.slice.call(document.querySelectorAll("details.file"));
  files.forEach(function (d) {
    var lazy = d.querySelector(".lazy[data-src]");
    if (!lazy) return;
    if (inView) inView.observe(lazy);
    // an entry parsed open gets a toggle event too: only an opening after
    // a fold is the reader's
    var folded = !d.open;
    d.addEventListener("toggle", function () {
      if (!d.open) folded = true;
      else if (folded) load(lazy);
    });
  });
  // On a page of files, j/k move between the files' entries (enter or
  // space opens or folds one, as for any summary).
  if (!rows.length && files.length) {
    var fat = -1;
    document.addEventListener("keydown", function (e) {
      if (e.target.tagName === "INPUT" || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key !== "j" && e.key !== "k") return;
      var cur = files.indexOf(document.activeElement && document.activeElement.parentNode);
      if (cur >= 0) fat = cur;
      fat = Math.max(0, Math.min(files.length - 1, fat + (e.key === "j" ? 1 : -1)));
      var s = files[fat].querySelector("summary");
      s.focus();
      s.scrollIntoView({ block: "nearest" });
    });
  }
  // The first page of the timeline takes new events in as they come: the
  // page is fetched again and its list swapped in, without a reload.
  var live = document.getElementById("live");
  var list = document.querySelector("div.events");
  if (live && list && live.dataset.last !== undefined && window.EventSource) {
    var first = Number(live.dataset.last);
    var shown = first;
    var seen = shown;    // the newest event number the server announced
    var busy = false;    // one refresh at a time: a swap never races another
    var refresh = function () {
      if (busy || seen <= shown) return;
      busy = true;
      var n = seen;
      fetch(location.href, { headers: { "Accept": "text/html" } }).then(function (r) { return r.text(); }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("div.events");
        var h1 = doc.querySelector("h1");
        if (!fresh) return;
        list.innerHTML = fresh.innerHTML;
        if (h1) document.querySelector("h1").innerHTML = h1.innerHTML;
        live.textContent = (n - first) + " new event" + (n - first === 1 ? "" : "s");
        live.hidden = false;
        shown = n;
        bind();
      }).finally(function () {
        busy = false;
        refresh();
      });
    };
    var es = new EventSource("/live");
    es.addEventListener("last", function (e) {
      seen = Math.max(seen, Number(e.data));
      refresh();
    });
  }
  // The team page's timeline: its older events are fetched a page at a
  // time (the JSON of /team/events) when "Older events" is clicked, and
  // appended as rows like the server's.
  var more = document.querySelector("a.team-more");
  var teamList = document.getElementById("team-events");
  function el(tag, cls, text) {
    var x = document.createElement(tag);
    if (cls) x.className = cls;
    if (text !== undefined) x.textContent = text;
    return x;
  }
  function teamRow(ev) {
    var li = el("li", "ev tev" + (ev.status !== "committed" ? " " + ev.status : ""));
    li.dataset.href = ev.href;
    li.dataset.ws = ev.workspace;
    li.dataset.seq = ev.seq;
    li.dataset.who = ev.who;
    var a = el("a", "seq", ev.workspace.slice(0, 8) + " #" + ev.seq);
    a.href = ev.href;
    li.append(a, " ");
    if (ev.repository) {
      var rp = el("span", "repo", ev.repository);
      rp.title = "git repository";
      li.append(rp, " ");
    }
    li.append(el("span", "who", ev.who + (ev.host ? "@" + ev.host : "")), " ", el("span", "tool", ev.what), " ");
    var files = el("span", "files");
    (ev.paths || []).slice(0, 3).forEach(function (p) { files.append(el("span", "path", p), " "); });
    if ((ev.paths || []).length > 3) files.append("+" + ev.paths.length + " files");
    li.append(files, " ");
    if (ev.added || ev.removed) {
      var c = el("span", "counts");
      if (ev.added) c.append(el("span", "plus", "+" + ev.added));
      c.append(" ");
      if (ev.removed) c.append(el("span", "minus", "\u2212" + ev.removed));
      li.append(c, " ");
    }
    if (ev.model) li.append(el("span", "model", ev.model), " ");
    var t = el("time", "", ev.when);
    t.setAttribute("datetime", ev.time);
    li.append(t);
    if (ev.status !== "committed") li.append(" ", el("span", "status", ev.status));
    if (ev.prompt) li.append(" ", el("span", "instr", ev.prompt));
    return li;
  }
  if (more && teamList) {
    more.addEventListener("click", function (e) {
      e.preventDefault();
      if (more.dataset.loading) return;
      more.dataset.loading = "1";
      fetch(more.getAttribute("href"), { headers: { "Accept": "application/json" } }).then(function (r) { return r.json(); }).then(function (page) {
        if (page.error) throw new Error(page.error);
        page.rows.forEach(function (ev) {
          var li = teamRow(ev);
          teamList.appendChild(li);
          hook(li);
          rows.push(li);
        });
        if (page.next) more.setAttribute("href", page.next);
        else more.parentNode.removeChild(more);
      }).catch(function (err) {
        more.textContent = "Older events could not be loaded (" + err.message + "): click to try again →";
      }).finally(function () {
        delete more.dataset.loading;
      });
    });
  }
})();

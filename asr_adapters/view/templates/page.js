(function () {
  "use strict";
  // Element ids live in two namespaces: the page's own start with "asr-", a record's with "rec-"
  // (record ids come from the stream, and a record named "more" must not replace the page's
  // elements for this script: DOM clobbering).
  var RECORD = "rec-";
  function byAttr(attr, value) {
    return document.querySelector("[" + attr + '="' + CSS.escape(value) + '"]');
  }
  // Tool results sit under the call they answer (paired by callId); deliveries are also shown
  // on the message they deliver. Runs on the page, then on each chunk of later records before
  // it is inserted, so each record is visited once.
  var calls = Object.create(null), messages = Object.create(null);
  function find(root, id) {
    return (root.getElementById && root.getElementById(id)) || document.getElementById(id);
  }
  function wire(root) {
    root.querySelectorAll(".tool-call[data-call-id]").forEach(function (call) {
      calls[call.getAttribute("data-call-id")] = call;
    });
    root.querySelectorAll("article[data-message-id]").forEach(function (message) {
      messages[message.getAttribute("data-message-id")] = message;
    });
    root.querySelectorAll(".tool-result[data-for-call]").forEach(function (result) {
      var call = calls[result.getAttribute("data-for-call")];
      if (call) { call.querySelector(".results").appendChild(result); call.classList.add("answered"); }
    });
    // a reference by field (compaction.from = "messageId=api:1") links to the message it names
    root.querySelectorAll("a.ref[data-ref]").forEach(function (link) {
      var ref = link.getAttribute("data-ref");
      var message = ref.indexOf("messageId=") === 0 ? messages[ref.slice(10)] : null;
      if (message) { link.href = "#" + message.id; }
    });
    root.querySelectorAll(".delivery[data-target]").forEach(function (delivery) {
      var target = delivery.getAttribute("data-target"), message = null;
      if (/^r[0-9]+$/.test(target)) { message = find(root, RECORD + target); }
      else if (target.indexOf("messageId=") === 0) { message = messages[target.slice(10)] || null; }
      if (!message || !message.querySelector(".deliveries")) { return; }
      var badge = delivery.querySelector(".badge").cloneNode(true), link = document.createElement("a");
      link.href = "#" + delivery.id; link.textContent = "delivery " + delivery.id.slice(RECORD.length) + ": ";
      var holder = document.createElement("div"); holder.className = "delivered";
      holder.appendChild(link); holder.appendChild(badge);
      message.querySelector(".deliveries").appendChild(holder);
    });
  }
  // Records a later rewind, revert or /undo took out of the history are struck through and say
  // what removed them; a revision (supersedes) says which record revises it.
  var byMessage = Object.create(null);
  function note(target, cls, text, href) {
    var header = target.querySelector("header") || target.querySelector("summary");
    if (!header) { return; }
    var badge = document.createElement("a");
    badge.className = "badge " + cls; badge.href = href; badge.textContent = text;
    header.insertBefore(badge, header.querySelector(".meta"));
  }
  function before(a, b) {  // a chunk not yet inserted follows everything on the page
    if (a.getRootNode() !== b.getRootNode()) { return a.isConnected; }
    return Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  }
  function removals(root) {
    root.querySelectorAll("article[data-message-id]").forEach(function (message) {
      var id = message.getAttribute("data-message-id");
      (byMessage[id] = byMessage[id] || []).push(message);
    });
    root.querySelectorAll("article.removal[data-removes]").forEach(function (removal) {
      var rid = removal.id.slice(RECORD.length), what = removal.getAttribute("data-what");
      var targets = [];
      JSON.parse(removal.getAttribute("data-removes")).forEach(function (ref) {
        if (ref.indexOf("messageId=") === 0) { targets = targets.concat(byMessage[ref.slice(10)] || []); }
        else { targets.push(find(root, RECORD + ref)); }
      });
      JSON.parse(removal.getAttribute("data-removes-messages") || "[]").forEach(function (id) {
        targets = targets.concat(byMessage[id] || []);
      });
      targets.forEach(function (target) {
        // only records before the removal: a message written again after it is live
        if (!target || !before(target, removal)) { return; }
        target.classList.add("removed");
        note(target, "removed-by", "removed by " + rid + " (" + what + ")", "#" + removal.id);
      });
    });
    root.querySelectorAll("article a.supersedes").forEach(function (link) {
      var revision = link.closest("article"), target = find(root, RECORD + link.getAttribute("href").slice(1 + RECORD.length));
      if (!revision || !target || target === revision) { return; }
      target.classList.add("superseded");
      note(target, "revised-by", "revised by " + revision.id.slice(RECORD.length), "#" + revision.id);
    });
  }
  // Long sessions: later records wait in inert JSON chunks until the reader gets to them.
  var pending = Array.prototype.slice.call(document.querySelectorAll("script.chunk"));
  var more = document.getElementById("asr-more");
  function loadNext() {
    var chunk = pending.shift();
    if (!chunk) { return false; }
    var holder = document.createElement("template");
    holder.innerHTML = JSON.parse(chunk.textContent);
    wire(holder.content);
    removals(holder.content);
    chunk.parentNode.replaceChild(holder.content, chunk);
    if (!pending.length) { markUnanswered(); }
    if (!pending.length && more) { more.hidden = true; }
    else if (more) { more.querySelector("button").textContent = "show the rest of the session (" + pending.length + " more part(s))"; }
    return true;
  }
  // An address names a record element ("#rec-r13", as the page's links do) or a record ("#r13").
  function located(id) { return document.getElementById(id) || document.getElementById(RECORD + id); }
  function reveal(id) {
    while (id && !located(id) && loadNext()) { /* load until the target exists */ }
    var target = id && located(id);
    if (target) { target.scrollIntoView(); }
  }
  // Once every record is on the page, calls that no result answers say so.
  function markUnanswered() {
    document.querySelectorAll(".tool-call:not(.answered):not(.marked)").forEach(function (call) {
      call.classList.add("marked");
      var badge = document.createElement("span");
      badge.className = "badge no-result"; badge.textContent = "no result recorded";
      call.querySelector("header").insertBefore(badge, call.querySelector("header .meta"));
    });
  }
  wire(document);
  removals(document);
  if (!pending.length) { markUnanswered(); }
  // A stream that breaks the format's rules says so at the top as well as at its end.
  var findings = document.getElementById("asr-findings"), top = document.querySelector("header.session");
  if (findings && top) {
    var notice = document.createElement("p"), jump = document.createElement("a");
    notice.className = "findings-notice"; jump.href = "#asr-findings";
    jump.textContent = "This stream breaks rules of the ASR format: the end of the page says which.";
    notice.appendChild(jump); top.appendChild(notice);
  }
  // A session without a title is named by the first words the person typed (the page marks
  // that message); a title the source gave later (a record with a title) names it instead.
  var heading = document.querySelector("header.session h1");
  var later = document.querySelectorAll("article[data-session-title]");
  var first = document.querySelector("article[data-title]");
  var name = later.length ? later[later.length - 1].getAttribute("data-session-title")
    : (heading && heading.getAttribute("data-untitled") === "1" && first ? first.getAttribute("data-title") : "");
  if (heading && name) { heading.textContent = name; document.title = name; }
  // The models the session used, as its messages record them, in the header.
  var models = [];
  document.querySelectorAll("article.message .badge.model").forEach(function (badge) {
    if (models.indexOf(badge.textContent) < 0) { models.push(badge.textContent); }
  });
  if (models.length) {
    document.getElementById("asr-models").textContent = models.join(", ");
    document.querySelectorAll(".models").forEach(function (e) { e.hidden = false; });
  }
  if (more) {
    more.querySelector("button").addEventListener("click", function () { while (loadNext()) { /* all */ } });
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(function (entries) {
        if (entries.some(function (e) { return e.isIntersecting; })) { loadNext(); }
      }, { rootMargin: "2000px" }).observe(more);
    }
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest('a[href^="#"]');
    if (link && pending.length) { event.preventDefault(); reveal(link.getAttribute("href").slice(1)); }
  });
  function revealHash() { if (location.hash.length > 1) { reveal(decodeURIComponent(location.hash.slice(1))); } }
  window.addEventListener("hashchange", revealHash);
  revealHash();
  var vendor = document.getElementById("asr-show-vendor");
  if (vendor) { vendor.addEventListener("change", function () { document.body.classList.toggle("with-vendor", vendor.checked); }); }
  // The site index: the filters of asr search over its sessions (words, agent, author, tool,
  // dates, failed calls), all at once.
  var filter = document.getElementById("asr-filter");
  function value(id) { var e = document.getElementById(id); return e ? (e.type === "checkbox" ? e.checked : e.value) : ""; }
  function applyFilters() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    var agent = value("asr-filter-agent"), author = value("asr-filter-author"), tool = value("asr-filter-tool").trim();
    var since = value("asr-filter-since"), until = value("asr-filter-until"), failed = value("asr-filter-failed");
    document.querySelectorAll("tr.session-row").forEach(function (row) {
      var text = row.getAttribute("data-search").toLowerCase(), started = (row.getAttribute("data-started") || "").slice(0, 10);
      var match = words.every(function (w) { return text.indexOf(w) >= 0; })
        && (!agent || row.getAttribute("data-agent") === agent)
        && (!author || JSON.parse(row.getAttribute("data-authors") || "[]").indexOf(author) >= 0)
        && (!tool || JSON.parse(row.getAttribute("data-tools") || "[]").indexOf(tool) >= 0)
        && (!since || (started && started >= since)) && (!until || (started && started <= until))
        && (!failed || Number(row.getAttribute("data-failed")) > 0);
      row.hidden = !match; if (match) { shown += 1; }
    });
    document.getElementById("asr-shown").textContent = String(shown);
  }
  if (filter) {
    ["asr-filter", "asr-filter-agent", "asr-filter-author", "asr-filter-tool", "asr-filter-since", "asr-filter-until",
      "asr-filter-failed"].forEach(function (id) {
      var e = document.getElementById(id);
      if (e) { e.addEventListener("input", applyFilters); e.addEventListener("change", applyFilters); }
    });
  }
  // Search the whole session, the records still waiting in chunks too: a chunk that holds the
  // words is inserted, then every record holding them is marked and the first shown.
  var search = document.getElementById("asr-search");
  var hits = [], current = -1;
  function scope() {
    var who = value("asr-search-author");
    return who ? '.part[data-author="' + CSS.escape(who) + '"]' : "article.rec";
  }
  function holds(root, selector, words) {
    return Array.prototype.some.call(root.querySelectorAll(selector), function (e) {
      var text = e.textContent.toLowerCase();
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    });
  }
  function chunkHolds(chunk, selector, words) {
    var parsed = document.createElement("template");
    parsed.innerHTML = JSON.parse(chunk.textContent);
    return holds(parsed.content, selector, words);
  }
  function runSearch() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean), selector = scope();
    document.querySelectorAll(".search-hit").forEach(function (e) { e.classList.remove("search-hit"); });
    hits = []; current = -1;
    if (words.length) {
      var last = -1;
      pending.forEach(function (chunk, i) { if (chunkHolds(chunk, selector, words)) { last = i; } });
      for (var i = 0; i <= last; i++) { loadNext(); }
      // each record's own text (a result moved under its call stays the result's), in page order
      var vendor = document.body.classList.contains("with-vendor"), who = value("asr-search-author"), own = new Map();
      var walker = document.createTreeWalker(document.querySelector("main") || document.body, NodeFilter.SHOW_TEXT);
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        var element = node.parentElement, record = element && element.closest("article.rec");
        if (!record || (who && !element.closest(selector))) { continue; }
        own.set(record, (own.get(record) || "") + node.nodeValue + " ");
      }
      own.forEach(function (text, record) {
        text = text.toLowerCase();
        if (!words.every(function (w) { return text.indexOf(w) >= 0; })) { return; }
        if (!vendor && record.closest(".rec.vendor, .rec.decl")) { return; }
        hits.push(record);
      });
      hits.forEach(function (record) { record.classList.add("search-hit"); });
    }
    document.getElementById("asr-search-status").textContent = words.length ? hits.length + " record(s)" : "";
    step();
  }
  function step() {
    if (!hits.length) { return; }
    current = (current + 1) % hits.length;
    var record = hits[current];
    for (var open = record; open; open = open.parentElement) { if (open.tagName === "DETAILS") { open.open = true; } }
    var word = search.value.toLowerCase().split(/\s+/).filter(Boolean)[0] || "";
    record.querySelectorAll("details").forEach(function (d) { if (d.textContent.toLowerCase().indexOf(word) >= 0) { d.open = true; } });
    record.scrollIntoView({ block: "center" });
    document.getElementById("asr-search-status").textContent = (current + 1) + " of " + hits.length + " record(s)";
  }
  if (search) {
    search.addEventListener("keydown", function (event) {
      if (event.key !== "Enter") { return; }
      event.preventDefault();
      if (hits.length && search.getAttribute("data-searched") === search.value + "\u0000" + value("asr-search-author")) { step(); return; }
      search.setAttribute("data-searched", search.value + "\u0000" + value("asr-search-author"));
      runSearch();
    });
    document.getElementById("asr-search-go").addEventListener("click", function () {
      search.setAttribute("data-searched", search.value + "\u0000" + value("asr-search-author")); runSearch();
    });
  }
})();

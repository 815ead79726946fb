/// The console's only script, served from the binary (/static/console.js; the
/// Content-Security-Policy allows scripts from the console itself and nowhere else). Pages work
/// without it; with it, a live page updates itself in place and the operator can pause that, and a table
/// that scrolls sideways takes the keyboard's focus, the review page works by keyboard, and
/// moments read "12 s ago".
enum Script {
    static let js = """
        // A table wider than the window scrolls inside itself (a phone): it takes the keyboard's
        // focus then, so it can be scrolled without a mouse.
        (function () {
          function mark() {
            document.querySelectorAll('table').forEach(function (table) {
              if (table.scrollWidth > table.clientWidth) table.tabIndex = 0; else table.removeAttribute('tabindex');
            });
          }
          mark();
          window.addEventListener('resize', mark);
          document.addEventListener('discern:updated', mark);
        })();

        // Moments as "12 s ago" (the exact time on hover), kept current every 5 s.
        (function () {
          function ago(seconds) {
            if (seconds < 0) return 'in ' + ago(-seconds).replace(' ago', '');
            if (seconds < 60) return Math.round(seconds) + ' s ago';
            if (seconds < 3600) return Math.round(seconds / 60) + ' min ago';
            if (seconds < 86400) return (seconds / 3600).toFixed(1) + ' h ago';
            return Math.round(seconds / 86400) + ' d ago';
          }
          function show() {
            document.querySelectorAll('time[datetime]').forEach(function (time) {
              var at = Date.parse(time.getAttribute('datetime'));
              if (!isNaN(at)) time.textContent = ago((Date.now() - at) / 1000);
            });
          }
          show();
          setInterval(show, 5000);
          document.addEventListener('discern:updated', show);
        })();

        // The review page by keyboard: j / k the next / previous card, c confirm, e correct (the
        // first field; Enter saves), x cannot tell; Escape leaves a field. Not while typing.
        (function () {
          var forms = Array.prototype.slice.call(document.querySelectorAll('form[action="/actions/review"]'));
          if (!forms.length) return;
          var current = 0;
          function select(index, scroll) {
            current = Math.max(0, Math.min(forms.length - 1, index));
            forms.forEach(function (form, i) { form.closest('.card').classList.toggle('current', i === current); });
            if (scroll) forms[current].closest('.card').scrollIntoView({block: 'nearest'});
          }
          forms.forEach(function (form, i) { form.closest('.card').addEventListener('focusin', function () { select(i, false); }); });
          select(0, false);
          document.addEventListener('keydown', function (event) {
            if (event.ctrlKey || event.metaKey || event.altKey) return;
            var target = event.target;
            if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
              if (event.key === 'Escape') target.blur();
              return;
            }
            var form = forms[current];
            if (event.key === 'j') select(current + 1, true);
            else if (event.key === 'k') select(current - 1, true);
            else if (event.key === 'c') form.querySelector('button[value=confirm]').click();
            else if (event.key === 'x') form.querySelector('button[value=cannot_tell]').click();
            else if (event.key === 'e') { var field = form.querySelector('input[type=text]'); field.focus(); field.select(); }
            else return;
            event.preventDefault();
          });
        })();

        // Live pages (<main data-live>) fetch themselves again when the console says something
        // they show changed (server-sent events from /events, fed by PostgreSQL's NOTIFY) and put
        // the new <main> in place: no reload, the scroll position kept. Not while the operator
        // has paused live updates (kept for the tab), has begun to fill or tick something on the
        // page (also while a fetch was under way), or the tab is hidden: the change waits and is
        // shown after. Without event streams (an old proxy), the page looks again every 15 s.
        (function () {
          var main = document.querySelector('main[data-live]');
          var button = document.getElementById('live');
          if (!main || !button || !window.fetch) return;
          var paused = sessionStorage.getItem('discern-live') === 'paused';
          var pending = false, busy = false, editing = false;
          function show() {
            button.textContent = paused ? 'Resume live updates' : 'Pause live updates';
            button.setAttribute('aria-pressed', paused ? 'true' : 'false');
          }
          button.hidden = false;
          show();
          button.addEventListener('click', function () {
            paused = !paused;
            sessionStorage.setItem('discern-live', paused ? 'paused' : 'live');
            show();
          });
          main.addEventListener('input', function () { editing = true; });
          main.addEventListener('change', function () { editing = true; });
          function update() {
            var typing = document.activeElement && /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
            if (!pending || busy || paused || editing || typing || document.hidden) return;
            pending = false;
            busy = true;
            fetch(location.href, {credentials: 'same-origin', headers: {'Accept': 'text/html'}}).then(function (response) {
              return response.ok ? response.text() : null;
            }).then(function (html) {
              var fresh = html && new DOMParser().parseFromString(html, 'text/html');
              var freshMain = fresh && fresh.querySelector('main');
              // Ticked or typed while the page was fetched, however slow the console: what the
              // operator did stays, and the change is shown once they are done.
              if (freshMain && (editing || paused)) {
                pending = true;
              } else if (freshMain) {
                main.innerHTML = freshMain.innerHTML;
                document.title = fresh.title;
                document.dispatchEvent(new Event('discern:updated'));
              }
            }).catch(function () { pending = true; }).then(function () { busy = false; });
          }
          setInterval(update, 500);
          if (window.EventSource) {
            var events = new EventSource('/events');
            events.addEventListener('change', function () { pending = true; update(); });
          } else {
            setInterval(function () { pending = true; }, 15000);
          }
        })();
        """
}

/// The console's only script, served from the binary (/static/console.js; the
/// Content-Security-Policy allows scripts from the console itself and nowhere else). Pages work
/// without it; with it, a live page reloads itself and the operator can pause that, and a table
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

        // Live pages (<main data-refresh="N">) reload every N seconds: not while the operator has
        // paused live updates (kept for the tab), types in a form, or the tab is hidden.
        (function () {
          var main = document.querySelector('main[data-refresh]');
          var button = document.getElementById('live');
          if (!main || !button) return;
          var seconds = parseInt(main.getAttribute('data-refresh'), 10) || 10;
          var paused = sessionStorage.getItem('discern-live') === 'paused';
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
          setInterval(function () {
            var typing = document.activeElement && /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
            if (!paused && !document.hidden && !typing) location.reload();
          }, seconds * 1000);
        })();
        """
}

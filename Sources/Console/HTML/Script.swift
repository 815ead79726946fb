/// The console's only script, served from the binary (/static/console.js; the
/// Content-Security-Policy allows scripts from the console itself and nowhere else). Pages work
/// without it; with it, a live page reloads itself and the operator can pause that, and a table
/// that scrolls sideways takes the keyboard's focus.
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

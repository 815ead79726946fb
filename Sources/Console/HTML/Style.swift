import Foundation

/// The console's only stylesheet, served from the binary (/static/console.css): no external
/// assets, so it works offline and behind a firewall, and the Content-Security-Policy can stay
/// at 'self'.
enum Style {
    static let css = """
        :root { --ink: #1d2433; --muted: #5f6778; --line: #dde1e8; --control: #7d8597; --bg: #f6f7f9; --ok: #2f7d4f; --bad: #b3261e;
                --warn: #9a6700; --accent: #2458b5; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
        header { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #fff; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; letter-spacing: .02em; }
        nav a { margin-right: 16px; color: var(--muted); text-decoration: none; }
        nav a.on, nav a:hover { color: var(--accent); }
        .live { margin-left: auto; font-size: 12px; }
        .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .ro { margin-left: auto; font-size: 12px; color: var(--warn); border: 1px solid var(--warn); padding: 1px 6px; border-radius: 4px; }
        main { padding: 16px 24px 48px; max-width: 1400px; }
        h1 { font-size: 20px; margin: 4px 0 16px; }
        h2 { font-size: 15px; margin: 24px 0 8px; }
        table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
        th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-weight: 600; color: var(--muted); font-size: 12px; }
        td.n { text-align: right; font-variant-numeric: tabular-nums; }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 12px; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
        .card img, .photo img { display: block; width: 100%; height: 150px; object-fit: cover; background: #e9ecf1; }
        .card .facts { padding: 6px 8px; font-size: 12px; }
        .card.current { outline: 2px solid var(--accent); outline-offset: 1px; }
        kbd { font: 11px ui-monospace, monospace; border: 1px solid var(--control); border-radius: 3px; padding: 0 4px; }
        .card .facts b { font-size: 13px; }
        .muted { color: var(--muted); }
        .bad { color: var(--bad); }
        .ok { color: var(--ok); }
        progress { width: 220px; height: 10px; vertical-align: middle; accent-color: var(--ok); }
        .grid2 { display: grid; grid-template-columns: minmax(280px, 420px) 1fr; gap: 24px; align-items: start; }
        .photo img { height: auto; max-height: 420px; object-fit: contain; border: 1px solid var(--line); }
        pre { background: #fff; border: 1px solid var(--line); padding: 10px; overflow: auto; max-height: 480px; font-size: 12px; }
        form.inline { display: inline; }
        button { font: inherit; padding: 3px 10px; border: 1px solid var(--control); background: #fff; border-radius: 4px; cursor: pointer; }
        button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
        input[type=text], input[type=number], input[type=date], select { font: inherit; padding: 3px 6px; border: 1px solid var(--control); border-radius: 4px; }
        .filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 12px; }
        .filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
        .alarm { background: #fdecea; border: 1px solid var(--bad); color: var(--ink); padding: 8px 12px; border-radius: 4px; margin-bottom: 12px; }
        .alarm b { color: var(--bad); }
        .notice { background: #fff8e1; border: 1px solid #f0d98c; padding: 8px 12px; border-radius: 4px; margin-bottom: 12px; }
        svg text { font-size: 10px; fill: var(--muted); }
        /* A phone (390 px): the header wraps, wide tables scroll inside themselves, one column. */
        @media (max-width: 640px) {
            header { flex-wrap: wrap; gap: 8px; padding: 8px 12px; }
            nav a { display: inline-block; margin: 2px 12px 2px 0; }
            main { padding: 12px 12px 32px; }
            table { display: block; max-width: 100%; overflow-x: auto; }
            .grid2 { grid-template-columns: 1fr; }
            .cards { grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); }
            progress { width: 120px; }
        }
        """
}

/// Finished jobs per hour as an inline SVG bar chart (no script, no external library).
enum Chart {
    static func hourly(_ hours: [(label: String, succeeded: Int, dead: Int)], width: Int = 720, height: Int = 140) -> HTML {
        guard hours.contains(where: { $0.succeeded + $0.dead > 0 }) else { return "<p class=\"muted\">Nothing finished in the last 12 hours.</p>" }
        let top = max(1, hours.map { $0.succeeded + $0.dead }.max() ?? 1)
        let slot = Double(width - 40) / Double(hours.count)
        let plot = Double(height - 24)
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var bars: HTML = ""
        for (index, hour) in hours.enumerated() {
            let x = 36 + Double(index) * slot, w = slot * 0.8
            let ok = plot * Double(hour.succeeded) / Double(top), bad = plot * Double(hour.dead) / Double(top)
            let tip = HTML.text("\(hour.label): \(hour.succeeded) succeeded, \(hour.dead) dead")
            bars +=
                "<rect x=\"\(f(x))\" y=\"\(f(plot - ok - bad))\" width=\"\(f(w))\" height=\"\(f(ok))\" fill=\"#2f7d4f\"><title>\(tip)</title></rect>"
            if hour.dead > 0 {
                bars +=
                    "<rect x=\"\(f(x))\" y=\"\(f(plot - bad))\" width=\"\(f(w))\" height=\"\(f(bad))\" fill=\"#b3261e\"><title>\(tip)</title></rect>"
            }
            bars += "<text x=\"\(f(x))\" y=\"\(height - 6)\">\(String(hour.label.suffix(5)))</text>"
        }
        return """
            <svg role="img" aria-label="jobs finished per hour" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">
            <text x="0" y="10">\(top)</text><text x="0" y="\(Int(plot))">0</text>\(bars)</svg>
            """
    }
}

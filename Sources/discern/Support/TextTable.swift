/// Plain aligned columns for the terminal.
enum TextTable {
    /// Cells are printed safe (`TerminalText`) and cut at `maxCell` characters.
    static func render(headers: [String], rows: [[String]], maxCell: Int = 60) -> String {
        let rows = rows.map { $0.map { TerminalText.safe($0, maxLength: maxCell) } }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }
}

private extension String {
    func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}

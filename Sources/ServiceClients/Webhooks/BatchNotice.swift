import Foundation

/// The body of a batch's webhook: the report discern.batch_event_report fixed when the
/// batch ended, a delivery id the receiver can deduplicate by (a delivery retried after a lost
/// answer keeps its id), a link to the batch's report in the console, and `text`, one line a
/// person reads, which Slack's and Teams' incoming webhooks display as it is.
public enum BatchNotice {
    public static let event = "batch.finished"

    /// - Parameter consoleURL: the console's address as people reach it (`--public-url`); no
    ///   link without it.
    public static func body(reportJSON: String, deliveryID: String, consoleURL: String?) throws(ServiceError) -> Data {
        guard let report = try? JSONSerialization.jsonObject(with: Data(reportJSON.utf8)) as? [String: Any] else {
            throw ServiceError(.internalError, "the batch event's report is not a JSON object")
        }
        let name = report["batch"] as? String ?? "?"
        let link = consoleURL.map { base in
            let query =
                name.addingPercentEncoding(withAllowedCharacters: CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+=#?/")))
                ?? name
            return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/report?batch=" + query
        }
        var document: [String: Any] = ["id": deliveryID, "type": event, "batch": name, "report": report, "text": text(report, link: link)]
        if let link { document["console_url"] = link }
        do {
            return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw ServiceError(.internalError, "the batch's webhook could not be written as JSON: \(error)")
        }
    }

    /// "discern: batch night-1 is done: 11,980 succeeded, 12 dead, 8 cancelled of 12,000 jobs
    /// in 6 h 12 min; 3.1 GB sent as 1.2 GB; 36,000 calls (spend 360.00); commonest error:
    /// file_not_found ×9. <link>"
    static func text(_ report: [String: Any], link: String?) -> String {
        func count(_ key: String) -> Int { (report[key] as? NSNumber)?.intValue ?? 0 }
        var parts = ["\(grouped(count("succeeded"))) succeeded", "\(grouped(count("dead"))) dead"]
        if count("cancelled") > 0 { parts.append("\(grouped(count("cancelled"))) cancelled") }
        var line = "discern: batch \(report["batch"] as? String ?? "?") is done: \(parts.joined(separator: ", ")) of \(grouped(count("jobs"))) jobs"
        if let took = duration(from: report["created_at"] as? String, to: report["ended_at"] as? String) { line += " in \(took)" }
        if count("original_bytes") > 0 { line += "; \(size(count("original_bytes"))) sent as \(size(count("sent_bytes")))" }
        if count("api_calls") > 0 {
            line += "; \(grouped(count("api_calls"))) calls"
            if let spend = report["spend"] as? NSNumber { line += String(format: " (spend %.2f)", spend.doubleValue) }
        }
        if let top = (report["top_errors"] as? [[String: Any]])?.first, let kind = top["kind"] as? String {
            line += "; commonest error: \(kind) ×\((top["jobs"] as? NSNumber)?.intValue ?? 0)"
        }
        return line + "." + (link.map { " \($0)" } ?? "")
    }

    static func grouped(_ value: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.groupingSize = 3
        return formatter.string(from: NSNumber(value: value)) ?? "\(value)"
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 30 ? String(format: "%.1f GB", Double(bytes) / Double(1 << 30)) : String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
    }

    /// PostgreSQL's jsonb timestamps ("2026-11-24T22:00:00.123+00:00") apart, as "6 h 12 min".
    static func duration(from start: String?, to end: String?) -> String? {
        let parse = { (text: String?) -> Date? in
            guard let text else { return nil }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        }
        guard let from = parse(start), let to = parse(end), to >= from else { return nil }
        let minutes = Int(to.timeIntervalSince(from) / 60)
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : minutes > 0 ? "\(minutes) min" : "under a minute"
    }
}

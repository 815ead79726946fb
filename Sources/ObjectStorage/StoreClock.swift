import Foundation
import Synchronization

/// This host's clock, corrected by what the store said the time is: a worker whose clock is off
/// by more than S3's 15 minutes has every signature refused (RequestTimeTooSkewed), so, as the
/// Go and Java SDKs do, the difference is taken from the refusal's `Date` and every later
/// signature (and credential expiry) is reckoned in the store's time.
final class StoreClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    /// This host's clock (a test's own, in the tests).
    private let host: @Sendable () -> Date

    init(host: @escaping @Sendable () -> Date = { Date() }) {
        self.host = host
    }

    func now() -> Date { host().addingTimeInterval(offset.withLock { $0 }) }

    var correction: TimeInterval { offset.withLock { $0 } }

    /// Takes the store's time from an answer; returns whether the correction changed by more
    /// than a minute (so that signing again can help).
    @discardableResult
    func correct(storeTime: Date) -> Bool {
        let measured = storeTime.timeIntervalSince(host())
        return offset.withLock { offset in
            guard abs(measured - offset) > 60 else { return false }
            offset = measured
            return true
        }
    }

    /// An HTTP `Date` header (RFC 7231's IMF-fixdate: `Sun, 29 Nov 2026 01:16:22 GMT`).
    static func httpDate(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard words.count == 6, words[5] == "GMT", let day = Int(words[1]), let month = months.firstIndex(of: String(words[2])),
            let year = Int(words[3]), case let clock = words[4].split(separator: ":").compactMap({ Int($0) }), clock.count == 3,
            (1...31).contains(day), (1970...9999).contains(year), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month), Int32(day))
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (Int32(clock[0]), Int32(clock[1]), Int32(clock[2]))
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

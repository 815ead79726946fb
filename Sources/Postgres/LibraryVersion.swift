import CLibPQ

extension Connection {
    /// The libpq this process runs with, as it reports itself (`PQlibVersion`: 150018 is "15.18").
    public static var libraryVersion: String {
        let number = Int(PQlibVersion())
        return number >= 100_000 ? "\(number / 10_000).\(number % 10_000)" : "\(number / 10_000).\(number / 100 % 100).\(number % 100)"
    }
}

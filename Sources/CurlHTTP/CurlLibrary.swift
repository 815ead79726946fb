import CCurl

/// The libcurl this process runs with, as it reports itself (`curl_version`: "libcurl/7.88.1
/// OpenSSL/3.0.17 zlib/1.2.13 ...").
public enum CurlLibrary {
    private static var words: [Substring] { String(cString: curl_version()).split(separator: " ") }

    /// Its version ("7.88.1").
    public static var version: String {
        words.first.map { String($0.drop { $0 != "/" }.dropFirst()) } ?? "unknown"
    }

    /// The TLS library it was built with ("OpenSSL/3.0.17"), if it names one next.
    public static var tls: String? {
        words.dropFirst().first.map(String.init)
    }
}

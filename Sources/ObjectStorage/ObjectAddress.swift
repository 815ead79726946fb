/// An object in an S3-compatible bucket, as a job names it: `s3://bucket/key`. The key is kept
/// as written (no normalisation: `a//b` and `a/b` are different objects); a bucket name follows
/// S3's rules, so nothing but a name reaches a URL's host or path.
public struct ObjectAddress: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "s3://"
    public let bucket: String
    public let key: String

    /// nil unless `path` is `s3://bucket/key` with a valid bucket name and a key of 1-1024 bytes.
    public init?(_ path: String) {
        guard path.hasPrefix(Self.scheme) else { return nil }
        let rest = path.dropFirst(Self.scheme.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let bucket = String(rest[..<slash]), key = String(rest[rest.index(after: slash)...])
        guard Self.isBucketName(bucket), (1...1024).contains(key.utf8.count), !key.utf8.contains(0) else { return nil }
        (self.bucket, self.key) = (bucket, key)
    }

    public init?(bucket: String, key: String) {
        self.init("\(Self.scheme)\(bucket)/\(key)")
    }

    public var description: String { "\(Self.scheme)\(bucket)/\(key)" }

    /// Whether a job path names an object (whether or not a valid one).
    public static func isObjectPath(_ path: String) -> Bool { path.hasPrefix(scheme) }

    /// S3's bucket naming rules: 3-63 lower-case letters, digits, dots and hyphens, starting and
    /// ending with a letter or digit.
    public static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        func alphanumeric(_ byte: UInt8) -> Bool { (97...122).contains(byte) || (48...57).contains(byte) }
        return alphanumeric(first) && alphanumeric(last) && bytes.allSatisfy { alphanumeric($0) || $0 == 46 || $0 == 45 }
    }
}

/// A bucket, or a prefix of its keys, that a worker may read (`DISCERN_PATH_ROOTS` entries that
/// start `s3://`), or that `discern enqueue` lists.
public struct ObjectPrefix: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    /// "" for the whole bucket; otherwise as written ("cameras/" admits cameras/x.jpg, and
    /// "cameras" admits cameras-old/x.jpg too, as S3's own prefixes do).
    public let prefix: String

    /// nil unless `text` is `s3://bucket` or `s3://bucket/prefix` with a valid bucket name.
    public init?(_ text: String) {
        guard text.hasPrefix(ObjectAddress.scheme) else { return nil }
        let rest = text.dropFirst(ObjectAddress.scheme.count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard ObjectAddress.isBucketName(bucket) else { return nil }
        self.bucket = bucket
        prefix = String(rest.dropFirst(bucket.count + 1))
    }

    public var description: String { "\(ObjectAddress.scheme)\(bucket)/\(prefix)" }

    public func admits(_ address: ObjectAddress) -> Bool {
        address.bucket == bucket && address.key.hasPrefix(prefix)
    }
}

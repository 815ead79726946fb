import Foundation

/// One page of ListObjectsV2: the objects (key, size, ETag, storage class) and where the next
/// page starts.
public struct ListPage: Sendable {
    public struct Entry: Sendable, Equatable {
        public let key: String
        public let size: Int
        /// The ETag without its quotes: the MD5 of the bytes for a simple upload.
        public let etag: String
        /// `STANDARD`, `GLACIER`, ...; nil when the store does not say (STANDARD, for S3).
        public var storageClass: String? = nil
        /// A restore of an archived object has finished and its copy is readable.
        public var restored: Bool = false

        /// In an archive storage class, not restored: a GET is refused until someone restores
        /// it (S3 Glacier Flexible Retrieval and Deep Archive; Glacier Instant Retrieval reads
        /// as any other).
        public var isArchived: Bool { ["GLACIER", "DEEP_ARCHIVE"].contains(storageClass ?? "") && !restored }
    }

    public let entries: [Entry]
    public let nextToken: String?
}

/// An error answer's document: `<Error><Code>` and what S3 adds to some of them.
struct StoreRefusal: Sendable {
    let code: String
    let message: String
    /// AuthorizationHeaderMalformed's region the bucket is in.
    let region: String?
    /// RequestTimeTooSkewed's time at the store.
    let serverTime: String?
}

/// The XML documents an S3-compatible store answers, read with a streaming parser that keeps
/// only the few elements discern uses; anything else in them is ignored, and a document that
/// is not XML is `invalid`.
enum StoreAnswers {
    /// A page asked for with `encoding-type=url`: keys arrive percent-encoded, a space as `+`
    /// (as S3 and SeaweedFS send them, and botocore reads them), so a key holding a character
    /// XML 1.0 cannot carry (a control character) does not make the page unreadable.
    static func listPage(_ body: Data, urlEncoded: Bool = true) throws(ObjectStorageError) -> ListPage {
        let reader = ElementReader(
            wanted: [
                "Key", "Size", "ETag", "StorageClass", "IsRestoreInProgress", "RestoreExpiryDate", "IsTruncated", "NextContinuationToken",
                "EncodingType"
            ],
            grouping: "Contents")
        guard reader.read(body), reader.root == "ListBucketResult" else {
            throw ObjectStorageError(.invalid, "the store's object listing is not a ListBucketResult document: \(Self.snippet(body))")
        }
        // A store that ignores encoding-type sends keys as they are: they are not decoded then.
        let decode = urlEncoded && reader.top["EncodingType"] == "url"
        var entries: [ListPage.Entry] = []
        for group in reader.groups {
            guard let written = group["Key"], let size = group["Size"].flatMap(Int.init), size >= 0 else {
                throw ObjectStorageError(.invalid, "the store listed an object without a key or a size")
            }
            guard let key = decode ? Self.formDecoded(written) : written else {
                throw ObjectStorageError(.invalid, "the store listed a key that is not percent-encoded: \(Self.snippet(Data(written.utf8)))")
            }
            let restored = group["IsRestoreInProgress"] == "false" && group["RestoreExpiryDate"] != nil
            entries.append(
                .init(
                    key: key, size: size, etag: (group["ETag"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
                    storageClass: group["StorageClass"].flatMap { $0.isEmpty ? nil : $0 }, restored: restored))
        }
        let truncated = reader.top["IsTruncated"] == "true"
        let token = reader.top["NextContinuationToken"].flatMap { $0.isEmpty ? nil : $0 }
        if truncated && token == nil {
            throw ObjectStorageError(.invalid, "the store said the listing goes on but gave no continuation token")
        }
        return ListPage(entries: entries, nextToken: truncated ? token : nil)
    }

    /// The refusal an error answer carries; nil when the body is none (a HEAD's, a proxy's page).
    static func error(_ body: Data) -> StoreRefusal? {
        let reader = ElementReader(wanted: ["Code", "Message", "Region", "ServerTime"], grouping: nil)
        guard !body.isEmpty, reader.read(body), reader.root == "Error", let code = reader.top["Code"] else { return nil }
        return StoreRefusal(
            code: String(code.prefix(100)), message: String((reader.top["Message"] ?? "").prefix(300)),
            region: reader.top["Region"].flatMap(Self.regionName), serverTime: reader.top["ServerTime"])
    }

    /// `+` is a space and `%XX` a byte, as in a form; nil when that does not make UTF-8.
    static func formDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A region name as S3 writes one (`eu-west-1`); anything else is not taken.
    static func regionName(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard (1...40).contains(trimmed.count), trimmed.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else { return nil }
        return trimmed
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 65...70: return byte - 55
        case 97...102: return byte - 87
        default: return nil
        }
    }

    static func snippet(_ body: Data) -> String {
        String(decoding: body.prefix(200), as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

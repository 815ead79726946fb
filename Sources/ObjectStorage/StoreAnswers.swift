import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One page of ListObjectsV2: the objects (key, size, ETag) and where the next page starts.
public struct ListPage: Sendable {
    public struct Entry: Sendable, Equatable {
        public let key: String
        public let size: Int
        /// The ETag without its quotes: the MD5 of the bytes for a simple upload.
        public let etag: String
    }

    public let entries: [Entry]
    public let nextToken: String?
}

/// The XML documents an S3-compatible store answers, read with a streaming parser that keeps
/// only the few elements discern uses; anything else in them is ignored, and a document that
/// is not XML is `invalid`.
enum StoreAnswers {
    static func listPage(_ body: Data) throws(ObjectStorageError) -> ListPage {
        let reader = ElementReader(wanted: ["Key", "Size", "ETag", "IsTruncated", "NextContinuationToken"], grouping: "Contents")
        guard reader.read(body), reader.root == "ListBucketResult" else {
            throw ObjectStorageError(.invalid, "the store's object listing is not a ListBucketResult document: \(Self.snippet(body))")
        }
        var entries: [ListPage.Entry] = []
        for group in reader.groups {
            guard let key = group["Key"], let size = group["Size"].flatMap(Int.init), size >= 0 else {
                throw ObjectStorageError(.invalid, "the store listed an object without a key or a size")
            }
            entries.append(.init(key: key, size: size, etag: (group["ETag"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))))
        }
        let truncated = reader.top["IsTruncated"] == "true"
        let token = reader.top["NextContinuationToken"].flatMap { $0.isEmpty ? nil : $0 }
        if truncated && token == nil {
            throw ObjectStorageError(.invalid, "the store said the listing goes on but gave no continuation token")
        }
        return ListPage(entries: entries, nextToken: truncated ? token : nil)
    }

    /// The `<Error><Code>` of an error answer, and its message; nil when the body is none.
    static func error(_ body: Data) -> (code: String, message: String)? {
        let reader = ElementReader(wanted: ["Code", "Message"], grouping: nil)
        guard !body.isEmpty, reader.read(body), reader.root == "Error", let code = reader.top["Code"] else { return nil }
        return (String(code.prefix(100)), String((reader.top["Message"] ?? "").prefix(300)))
    }

    static func snippet(_ body: Data) -> String {
        String(decoding: body.prefix(200), as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// Collects the text of chosen elements: at the top level, or within each `grouping` element.
private final class ElementReader: NSObject, XMLParserDelegate {
    let wanted: Set<String>
    let grouping: String?
    private(set) var root: String?
    private(set) var top: [String: String] = [:]
    private(set) var groups: [[String: String]] = []
    private var group: [String: String]?
    private var depth = 0
    private var text = ""

    init(wanted: Set<String>, grouping: String?) {
        self.wanted = wanted
        self.grouping = grouping
    }

    func read(_ data: Data) -> Bool {
        let parser = XMLParser(data: data)
        parser.delegate = self
        parser.shouldResolveExternalEntities = false
        return parser.parse()
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:])
    {
        depth += 1
        if depth == 1 { root = name }
        if depth == 2, name == grouping { group = [:] }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        // A key holds at most 1,024 bytes: a longer text is not one of the elements read.
        if text.utf8.count < 4096 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if depth == 2, name == grouping, let finished = group {
            groups.append(finished)
            group = nil
        } else if wanted.contains(name) {
            if depth == 3, group != nil { group?[name] = text } else if depth == 2 { top[name] = text }
        }
        depth -= 1
        text = ""
    }
}

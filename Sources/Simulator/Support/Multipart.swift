import Foundation

/// A multipart/form-data body, split into its parts (RFC 7578). Enough for the simulated
/// services: names, file names, content types and bytes; no nested multiparts.
struct MultipartForm {
    struct Part {
        let name: String
        let filename: String?
        let contentType: String?
        let data: Data
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    let parts: [Part]

    /// nil when the content type is not multipart/form-data with a boundary.
    init?(contentType: String?, body: Data) {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
            let range = contentType.range(of: "boundary=")
        else { return nil }
        var boundary = String(contentType[range.upperBound...])
        if let semicolon = boundary.firstIndex(of: ";") { boundary = String(boundary[..<semicolon]) }
        boundary = boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [Part] = []
        var cursor = body.startIndex
        guard let first = body.range(of: delimiter, in: cursor..<body.endIndex) else { return nil }
        cursor = first.upperBound
        while let next = body.range(of: delimiter, in: cursor..<body.endIndex) {
            var chunk = body[cursor..<next.lowerBound]
            if chunk.starts(with: Data("\r\n".utf8)) { chunk = chunk.dropFirst(2) }
            if chunk.count >= 2, chunk.suffix(2) == Data("\r\n".utf8) { chunk = chunk.dropLast(2) }
            if let part = Self.part(chunk) { parts.append(part) }
            cursor = next.upperBound
            if body[cursor...].starts(with: Data("--".utf8)) { break }
        }
        self.parts = parts
    }

    subscript(name: String) -> Part? { parts.first { $0.name == name } }

    private static func part(_ chunk: Data) -> Part? {
        guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
        var name: String?, filename: String?, contentType: String?
        for line in head.components(separatedBy: "\r\n") {
            let lower = line.lowercased()
            if lower.hasPrefix("content-disposition:") {
                name = parameter("name", in: line)
                filename = parameter("filename", in: line)
            } else if lower.hasPrefix("content-type:") {
                contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
            }
        }
        guard let name else { return nil }
        return Part(name: name, filename: filename, contentType: contentType, data: Data(chunk[split.upperBound...]))
    }

    private static func parameter(_ key: String, in line: String) -> String? {
        for piece in line.components(separatedBy: ";") {
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\(key)=") else { continue }
            return String(trimmed.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}

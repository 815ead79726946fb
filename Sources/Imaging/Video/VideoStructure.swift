import Foundation
import MediaFiles

/// Checks a video's container box by box before it leaves: a file that only starts like a video
/// (`ftyp` and then text, a truncated upload) is refused here, not by the service after upload.
///
/// ISO base media (MP4, QuickTime): the top-level boxes must tile the file exactly, `ftyp`
/// first, with a `moov` holding `mvhd` and at least one `trak`, and media data (`mdat`, or
/// fragments). Matroska/WebM: an EBML header whose DocType is webm or matroska, then a Segment
/// whose elements parse, with Tracks and at least one Cluster.
public enum VideoStructure {
    /// What is wrong with a video's structure: a finding VideoFile turns into an ImagingError.
    public struct Problem: Error, Sendable, Equatable {
        public let reason: String
        /// The file ends inside a box or element: it may still be arriving.
        public let truncated: Bool
        /// Where the box or element that runs past the end claims to end.
        var claimedEnd: Int? = nil
    }

    /// - Parameter maxFileBytes: the largest file the service takes. A box claiming to end
    ///   beyond it cannot be the start of a file still arriving: it is garbage, not truncation.
    public static func check(_ bytes: [UInt8], container: VideoContainer, maxFileBytes: Int = .max) -> Problem? {
        let problem = container == .webm ? checkMatroska(bytes) : checkISOBaseMedia(bytes)
        guard let problem, problem.truncated, let claimed = problem.claimedEnd, claimed > maxFileBytes else { return problem }
        return Problem(reason: problem.reason, truncated: false)
    }

    // MARK: ISO base media

    struct Box {
        let type: String
        let start: Int
        let payload: Range<Int>
    }

    /// The boxes that tile `range`, or why they do not.
    static func boxes(_ bytes: [UInt8], in range: Range<Int>) -> Result<[Box], Problem> {
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 8 else {
                return .failure(Problem(reason: "\(range.upperBound - offset) stray bytes at offset \(offset)", truncated: true))
            }
            var size = Int(bigEndian32(bytes, offset))
            var header = 8
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                return .failure(Problem(reason: "no box type at offset \(offset)", truncated: false))
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            if size == 1 {
                guard range.upperBound - offset >= 16 else { return .failure(Problem(reason: "\(type) box header cut short", truncated: true)) }
                let large = (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + 8 + $1]) }
                guard large <= UInt64(Int.max) else { return .failure(Problem(reason: "\(type) box claims \(large) bytes", truncated: false)) }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset  // to the end
            }
            guard size >= header else { return .failure(Problem(reason: "\(type) box at offset \(offset) claims \(size) bytes", truncated: false)) }
            guard size <= range.upperBound - offset else {
                return .failure(
                    Problem(
                        reason: "\(type) box at offset \(offset) claims \(size) bytes; only \(range.upperBound - offset) follow",
                        truncated: true, claimedEnd: size > Int.max - offset ? Int.max : offset + size))
            }
            boxes.append(Box(type: type, start: offset, payload: (offset + header)..<(offset + size)))
            offset += size
        }
        return .success(boxes)
    }

    static func checkISOBaseMedia(_ bytes: [UInt8]) -> Problem? {
        let top: [Box]
        switch boxes(bytes, in: 0..<bytes.count) {
        case .failure(let problem): return problem
        case .success(let found): top = found
        }
        guard top.first?.type == "ftyp" else { return Problem(reason: "the file does not start with an ftyp box", truncated: false) }
        guard let movie = top.first(where: { $0.type == "moov" }) else {
            return Problem(reason: "there is no moov box (no movie header): not a playable video", truncated: false)
        }
        guard top.contains(where: { $0.type == "mdat" || $0.type == "moof" }) else {
            return Problem(reason: "there is no media data (mdat)", truncated: false)
        }
        switch boxes(bytes, in: movie.payload) {
        case .failure(let problem): return Problem(reason: "inside moov: \(problem.reason)", truncated: false)
        case .success(let children):
            guard children.contains(where: { $0.type == "mvhd" }), children.contains(where: { $0.type == "trak" }) else {
                return Problem(reason: "the moov box has no movie header (mvhd) or no track (trak)", truncated: false)
            }
        }
        return nil
    }

    // MARK: Matroska / WebM

    /// An EBML variable-length integer at `offset`: its value (marker bit removed, unless
    /// `keepMarker` for element ids) and its length; nil when malformed. All value bits set
    /// means "unknown size".
    static func vint(_ bytes: [UInt8], _ offset: Int, keepMarker: Bool = false) -> (value: UInt64, length: Int, unknown: Bool)? {
        guard offset < bytes.count, bytes[offset] != 0 else { return nil }
        let length = bytes[offset].leadingZeroBitCount + 1
        guard length <= 8, offset + length <= bytes.count else { return nil }
        var value = UInt64(keepMarker ? bytes[offset] : bytes[offset] & (0xFF >> length))
        for index in 1..<length { value = value << 8 | UInt64(bytes[offset + index]) }
        let allOnes = (UInt64(1) << (7 * UInt64(length))) - 1
        return (value, length, !keepMarker && value == allOnes)
    }

    static func checkMatroska(_ bytes: [UInt8]) -> Problem? {
        guard let headerID = vint(bytes, 0, keepMarker: true), headerID.value == 0x1A45DFA3,
            let headerSize = vint(bytes, headerID.length), !headerSize.unknown
        else {
            return Problem(reason: "no EBML header", truncated: false)
        }
        let headerStart = headerID.length + headerSize.length
        guard headerSize.value <= UInt64(bytes.count - headerStart) else { return Problem(reason: "the EBML header is cut short", truncated: true) }
        let headerEnd = headerStart + Int(headerSize.value)
        let docTypeMarker: [UInt8] = [0x42, 0x82]
        let header = Array(bytes[headerStart..<headerEnd])
        guard let at = (0..<max(0, header.count - 1)).first(where: { Array(header[$0..<($0 + 2)]) == docTypeMarker }),
            let size = vint(header, at + 2), at + 2 + size.length + Int(min(size.value, 64)) <= header.count
        else {
            return Problem(reason: "the EBML header names no DocType", truncated: false)
        }
        let docType = String(decoding: header[(at + 2 + size.length)..<(at + 2 + size.length + Int(min(size.value, 64)))], as: UTF8.self)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\0"))
        guard docType == "webm" || docType == "matroska" else {
            return Problem(reason: "DocType \(docType) is not webm or matroska", truncated: false)
        }
        guard let segmentID = vint(bytes, headerEnd, keepMarker: true), segmentID.value == 0x18538067,
            let segmentSize = vint(bytes, headerEnd + segmentID.length)
        else {
            return Problem(reason: "no Segment after the EBML header", truncated: headerEnd >= bytes.count)
        }
        let start = headerEnd + segmentID.length + segmentSize.length
        let end = segmentSize.unknown ? bytes.count : start + Int(min(segmentSize.value, UInt64(Int.max - start)))
        guard end <= bytes.count else { return Problem(reason: "the Segment claims more bytes than the file has", truncated: true) }
        var seen: Set<UInt64> = []
        var offset = start
        while offset < end {
            guard let id = vint(bytes, offset, keepMarker: true), let size = vint(bytes, offset + id.length) else {
                return Problem(reason: "a malformed element at offset \(offset)", truncated: offset + 8 > bytes.count)
            }
            seen.insert(id.value)
            // A live stream's clusters may have unknown sizes: what parsed so far must do.
            if size.unknown { break }
            let next = offset + id.length + size.length
            guard next <= end, size.value <= UInt64(end - next) else {
                return Problem(reason: "an element at offset \(offset) claims more bytes than follow", truncated: true)
            }
            offset = next + Int(size.value)
        }
        guard seen.contains(0x1654AE6B), seen.contains(0x1F43B675) else {
            return Problem(reason: "the Segment has no Tracks or no Cluster: not a playable video", truncated: false)
        }
        return nil
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

import MediaFiles
import DedicatedThreads
import CVips
import CVipsShim
import Foundation

/// Makes an image fit a service's policy: passed through untouched when it already complies,
/// otherwise one shrink-on-load pipeline and a JPEG encode that fits the byte budget.
///
/// Every call blocks on CPU: run it on a dedicated thread (`DedicatedThreads.ThreadPool`), never
/// on Swift's cooperative pool.
public struct ImagePreparer: Sendable {
    public let policy: ImagePolicy

    public init(policy: ImagePolicy) {
        self.policy = policy
    }

    /// Prepares an image held in memory.
    public func prepare(_ data: Data) throws(ImagingError) -> PreparedImage {
        BlockingCallAudit.check("libvips prepare")
        try checkSize(data.count, name: "the file")
        return try prepare(.memory(data))
    }

    /// Prepares a file a person named (`discern prepare FILE`); workers open through `PathRoots`.
    public func prepare(path: String) throws(ImagingError) -> PreparedImage {
        try prepare(file: try fileAccess { () throws(FileAccessError) in try OpenedFile.named(path) })
    }

    /// Prepares an opened image file. Oversized files are refused from their size; a file that
    /// must be shrunk is decoded as it is read, never loaded whole.
    public func prepare(file: OpenedFile) throws(ImagingError) -> PreparedImage {
        BlockingCallAudit.check("libvips prepare")
        try checkSize(file.size, name: file.path)
        do {
            return try prepare(.file(file))
        } catch {
            // libvips names the file by the descriptor it was given; a person needs its path.
            throw ImagingError(error.code, error.message.replacingOccurrences(of: file.procPath, with: file.path))
        }
    }

    /// The memory preparing `file` takes, from its header alone, by what each path really holds.
    /// The worker reserves it from its memory budget (`--max-mb-in-flight`) before preparing.
    /// - Sent as it is: the file's kept bytes (at most its size, within the byte budget) and the one-megabyte window its
    ///   structure is walked through; nothing is decoded.
    /// - Re-encoded: the pixels decoded once at the size they are sent (shrink-on-load: a 48 MP
    ///   JPEG decoded at 1/4 scale holds 3 MP), three bytes each, what the encoder writes (at
    ///   most that again, and at most twice the byte budget), libvips' line buffers and the window.
    /// - A progressive JPEG also holds its coefficients for the whole picture (libjpeg decodes
    ///   it only once every scan is in), at full size whatever the scale it decodes at; GIF,
    ///   HEIF and WebP decoders hold the whole picture at full size too (`wholePictureBytesPerPixel`).
    /// Pixels, not file size: a 200 MB PNG shrunk to 4096 px needs about what a 4 MB JPEG of that
    /// size does. A file refused from its header holds only the window. One path is estimated
    /// too low: a file that looks sendable as it is but whose structure turns out malformed is
    /// re-encoded (at most one decode of ≤ the size limit per prepare thread beyond the budget).
    public func memoryEstimate(file: OpenedFile) throws(ImagingError) -> Int {
        try Vips.initialize()
        let input = ImageInput.file(file)
        guard let format = ImageFormat.sniff(try input.head()), let source = try? readHeader(input, format: format) else {
            return ByteWindow.windowSize
        }
        if passThroughRefusal(source) == nil, format == .jpeg || format == .png || policy.keepMetadata {
            return file.size + ByteWindow.windowSize
        }
        let longest = max(source.width, source.height, 1)
        let box = Self.shrinkOnLoadBox(longest: longest, format: format, maxDimension: policy.maxDimension, floor: policy.transformFloor)
        let scale = min(1, Double(box) / Double(longest))
        let pixels = (Double(source.width) * scale).rounded(.up) * (Double(source.height) * scale).rounded(.up)
        let decoded = Int(min(pixels * 3, Double(Int32.max)))
        // A progressive JPEG is decoded from coefficients held for the whole picture at full
        // size, whatever the scale: several times what the same photo holds sequential
        // (docs/decisions/0002-memory-by-decoder.md).
        let coefficients = format == .jpeg ? try JPEGStructure.progressiveCoefficientBytes(input.window(size: 16 << 10)) : 0
        let whole = Int(min(Double(source.width) * Double(source.height) * Self.wholePictureBytesPerPixel(source), Double(Int32.max)))
        return whole + decoded + min(decoded, 2 * policy.maxBytes) + coefficients + Self.libvipsWorkingBytes + ByteWindow.windowSize
    }

    /// What a decoder holds of the whole picture at full size, whatever size it is sent at, per
    /// pixel. JPEG, PNG and TIFF stream, a few lines at a time (0). GIF: libnsgif's RGBA canvas
    /// and libvips' copy of the frame (8). HEIF: libheif's planes, then the interleaved picture:
    /// twice its samples (6 for RGB, 8 with alpha, twice that at 10 bits and more). WebP: libwebp's
    /// RGBA picture and libvips' copies of it (10, with room over the most measured).
    /// `PreparationMemoryTests` checks that each covers what preparing a 4000x3000 picture of its
    /// format holds (docs/decisions/0002-memory-by-decoder.md).
    static func wholePictureBytesPerPixel(_ source: SourceFacts) -> Double {
        switch source.format {
        case .jpeg, .png, .tiff: 0
        case .gif: 8
        case .heif: 2 * (source.hasAlpha ? 4 : 3) * (source.isEightBit ? 1 : 2)
        case .webp: 10
        }
    }

    /// libvips' own buffers while a pipeline runs (lines of the decoder, colour conversion and
    /// any resize, per thread): a few megabytes whatever the image.
    public static let libvipsWorkingBytes = 4 << 20

    private func checkSize(_ size: Int, name: String) throws(ImagingError) {
        guard size > 0 else { throw ImagingError(.empty, "\(name) is empty (0 bytes)") }
        guard size <= policy.maxSourceBytes else {
            throw ImagingError(.sourceTooLarge, "\(name) is \(size) bytes; the limit for source files is \(policy.maxSourceBytes)")
        }
    }

    private func prepare(_ input: ImageInput) throws(ImagingError) -> PreparedImage {
        try Vips.initialize()
        let started = DispatchTime.now()
        guard let format = ImageFormat.sniff(try input.head()) else {
            throw ImagingError(
                .unsupportedFormat,
                "the file is not an image discern accepts (JPEG, PNG, WebP, TIFF, HEIC/HEIF, GIF); its first bytes match none of them")
        }
        let source = try readHeader(input, format: format)
        var reason = passThroughRefusal(source)
        // JPEG and PNG are walked to their end before anything leaves: a file cut short (still
        // being copied) is refused as such, and a complete one loses its metadata, losslessly.
        // The walk reads through a one-megabyte window: a 200 MB file is never held whole.
        var structure: FileStructure?
        let window = input.window()
        if reason == nil || format == .png {
            structure = try FileStructure.walk(window, format: format, keepMetadata: policy.keepMetadata, completenessOnly: reason != nil)
        }
        switch structure {
        case .truncated(let detail):
            throw ImagingError(.truncated, "the \(format.rawValue) file is truncated (\(detail)); it may still be arriving")
        case .malformed(let detail) where reason == nil:
            reason = "its structure is unusual (\(detail))"
        case .complete(let kept, _) where reason == nil && kept.count < policy.minBytes:
            reason = "\(kept.count) bytes without metadata is under the service's \(policy.minBytes)-byte floor"
        case .complete(let kept, let removed) where reason == nil && kept.count <= policy.maxBytes:
            let note = removed > 0 ? ", \(removed) bytes of metadata removed" : ""
            return Draft(
                data: try window.gather(kept.ranges), format: format, width: source.width, height: source.height, source: source,
                quality: nil, encodeCount: 0, passedThrough: true,
                decision: "passed through: already \(format.rawValue), \(source.bytes) bytes, \(source.width)x\(source.height), upright\(note)"
            )
            .finished(started: started)
        default:
            break
        }
        if reason == nil, format != .jpeg, format != .png, policy.keepMetadata {
            // Other formats cannot be walked here: only with metadata kept may they go as they are.
            return Draft(
                data: try input.contents(), format: format, width: source.width, height: source.height, source: source,
                quality: nil, encodeCount: 0, passedThrough: true,
                decision: "passed through: already \(format.rawValue), \(source.bytes) bytes, \(source.width)x\(source.height), upright"
            )
            .finished(started: started)
        }
        return try transform(input, source: source, reason: reason ?? "its metadata can only be removed by re-encoding")
            .finished(started: started)
    }

    /// Reads only the header: dimensions and orientation, with the pixel-count guard applied
    /// before anything is decoded.
    private func readHeader(_ input: ImageInput, format: ImageFormat) throws(ImagingError) -> SourceFacts {
        guard let header = input.header() else {
            throw ImagingError(.undecodable, "the \(format.rawValue) file cannot be decoded: \(Vips.takeError())")
        }
        let pixels = header.width * header.height
        guard pixels <= policy.maxSourcePixels else {
            throw ImagingError(
                .tooManyPixels,
                "the image declares \(header.width)x\(header.height) = \(pixels) pixels; the limit is \(policy.maxSourcePixels) (a decompression-bomb guard)"
            )
        }
        guard min(header.width, header.height) >= policy.minDimension else {
            throw ImagingError(
                .tooSmall, "the image is \(header.width)x\(header.height); the service needs at least \(policy.minDimension) px on each side")
        }
        return SourceFacts(
            bytes: input.size, format: format, width: header.width, height: header.height,
            orientation: header.orientation, hasAlpha: header.hasAlpha,
            isEightBit: header.bandFormat == VIPS_FORMAT_UCHAR,
            isPlainColour: [VIPS_INTERPRETATION_sRGB, VIPS_INTERPRETATION_B_W].contains(header.interpretation))
    }

    /// Nil when the original's pixels can go as they are; otherwise why they cannot.
    private func passThroughRefusal(_ source: SourceFacts) -> String? {
        if !policy.acceptedFormats.contains(source.format) { return "\(source.format.rawValue) is not accepted by the service" }
        if source.bytes > policy.maxBytes { return "\(source.bytes) bytes is over the \(policy.maxBytes)-byte budget" }
        if let maxDimension = policy.maxDimension, max(source.width, source.height) > maxDimension {
            return "\(source.width)x\(source.height) is over the \(maxDimension) px limit"
        }
        if source.bytes < policy.minBytes { return "\(source.bytes) bytes is under the service's \(policy.minBytes)-byte floor" }
        if source.orientation != 1 { return "EXIF orientation \(source.orientation) needs rotating upright" }
        if !source.isEightBit { return "more than 8 bits per channel" }
        if !source.isPlainColour { return "not sRGB or greyscale (CMYK or another colour space)" }
        if source.hasAlpha { return "transparency must be flattened on white" }
        return nil
    }

    private func transform(_ input: ImageInput, source: SourceFacts, reason: String) throws(ImagingError) -> Draft {
        let box = Self.shrinkOnLoadBox(
            longest: max(source.width, source.height), format: source.format,
            maxDimension: policy.maxDimension, floor: policy.transformFloor)
        let decoded: VipsImage
        do {
            // The one decode, at the size sent: the quality search re-encodes these pixels.
            decoded = try upright(pipeline(input, box: box, source: source).inMemory(), source: source)
        } catch  where error.code == .processingFailed {
            // Pixels are decoded here: a failure is almost always bad input.
            throw Self.decodeFailure(error.message, source: source)
        }
        let fitted = try BudgetFitter(policy: policy).fit(decoded)
        guard fitted.data.count >= policy.minBytes else {
            throw ImagingError(.tooSmall, "the prepared image is \(fitted.data.count) bytes; the service needs at least \(policy.minBytes)")
        }
        return Draft(
            data: fitted.data, format: .jpeg, width: fitted.width, height: fitted.height, source: source,
            quality: fitted.quality, encodeCount: fitted.encodeCount, passedThrough: false,
            decision:
                "transformed (\(reason)): JPEG q\(fitted.quality), \(fitted.width)x\(fitted.height), \(fitted.data.count) bytes after \(fitted.encodeCount) encode(s)"
        )
    }

    /// One lazy pipeline: shrink-on-load, colour management to sRGB, alpha on white, 8-bit.
    /// Nothing is decoded until it is copied to memory. A JPEG is decoded by libjpeg at the 1/2ⁿ
    /// scale that gives the box (resampled only when no such scale does); other formats go
    /// through libvips' thumbnail, which also turns them upright.
    private func pipeline(_ input: ImageInput, box: Int, source: SourceFacts) throws(ImagingError) -> VipsImage {
        var image: VipsImage
        if source.format == .jpeg {
            guard let loaded = input.jpeg(shrink: Self.jpegShrink(longest: max(source.width, source.height), box: box)) else {
                throw Self.decodeFailure(Vips.takeError(), source: source)
            }
            image = loaded
            let longest = max(image.width, image.height)
            if longest > box {
                image = try image.map("resize to \(box) px") { cvipsshim_resize($0, $1, Double(box) / Double(longest)) }
            }
        } else {
            guard let thumbnail = input.thumbnail(box: box) else { throw Self.decodeFailure(Vips.takeError(), source: source) }
            image = thumbnail
        }
        if image.interpretation != VIPS_INTERPRETATION_sRGB {
            image = try image.map("convert to sRGB") { cvipsshim_colourspace_srgb($0, $1) }
        }
        if image.hasAlpha {
            image = try image.map("flatten alpha on white") { cvipsshim_flatten_white($0, $1) }
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.map("convert to 8-bit") { cvipsshim_cast_uchar($0, $1) }
        }
        return image
    }

    /// A JPEG turned upright by its EXIF orientation, from pixels already in memory (a rotation
    /// reads them out of order; the thumbnail of other formats did this itself).
    private func upright(_ decoded: VipsImage, source: SourceFacts) throws(ImagingError) -> VipsImage {
        guard source.format == .jpeg, source.orientation != 1 else { return decoded }
        return try decoded.map("rotate upright") { cvipsshim_autorot($0, $1) }
    }

    static func decodeFailure(_ detail: String, source: SourceFacts) -> ImagingError {
        if ImagingError.isSystemFailure(detail) {
            return ImagingError(
                .unreadable, "the \(source.format.rawValue) file could not be read to its end (the system's error, not the image's): \(detail)")
        }
        let truncated = ["premature", "truncat", "end of file", "out of data"].contains { detail.localizedCaseInsensitiveContains($0) }
        return ImagingError(
            truncated ? .truncated : .undecodable,
            "the \(source.format.rawValue) file cannot be decoded\(truncated ? " (it is truncated)" : ""): \(detail)")
    }
}

extension ImagePreparer {
    /// The box the thumbnail is fitted into. libjpeg decodes at 1/2, 1/4 or 1/8 scale almost for
    /// free. When an image must be re-encoded anyway, the smallest such scale whose result is at
    /// least `floor` is taken (nothing more is decoded than is sent); without a floor, a scale
    /// that lands within 10 % under the limit is, so an 8000 px photo becomes 4000 px by
    /// shrink-on-load alone instead of a full decode and a resize to 4096.
    public static func shrinkOnLoadBox(longest: Int, format: ImageFormat, maxDimension: Int?, floor: Int? = nil) -> Int {
        let limit = maxDimension.map { min($0, longest) } ?? longest
        guard format == .jpeg else { return limit }
        for factor in [8, 4, 2] {
            let scaled = (longest + factor - 1) / factor
            guard scaled <= limit else { continue }
            if let floor, scaled >= floor { return scaled }
            if longest > limit, scaled * 10 >= limit * 9 { return scaled }
        }
        return limit
    }
}

extension ImagePreparer {
    /// The libjpeg scale (1, 2, 4 or 8) to decode at for `box`: the largest whose result still
    /// covers it, so nothing is decoded that is not sent.
    public static func jpegShrink(longest: Int, box: Int) -> Int {
        [8, 4, 2].first { (longest + $0 - 1) / $0 >= box } ?? 1
    }
}

/// A prepared image before its timing is known.
private struct Draft {
    let data: Data
    let format: ImageFormat
    let width: Int
    let height: Int
    let source: SourceFacts
    let quality: Int?
    let encodeCount: Int
    let passedThrough: Bool
    let decision: String

    func finished(started: DispatchTime) -> PreparedImage {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
        return PreparedImage(
            data: data, format: format, width: width, height: height, original: source,
            quality: quality, encodeCount: encodeCount, passedThrough: passedThrough,
            milliseconds: elapsed, decision: decision)
    }
}

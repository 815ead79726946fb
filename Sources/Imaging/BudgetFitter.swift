import CVipsShim
import Foundation

/// Encodes an image as JPEG under the byte budget with as few encodes as it can.
///
/// The image comes decoded, once, at the size it is sent: most images fit at the start quality,
/// in one encode. Otherwise a model of JPEG size against quality, corrected by each measured
/// encode, picks the next quality to try from the same pixels. When even the quality floor
/// cannot fit, the image is downscaled by about sqrt(budget / size) and the search repeats. It
/// always fits, or says why it cannot.
struct BudgetFitter {
    let policy: ImagePolicy

    struct Fitted {
        let data: Data
        let quality: Int
        let width: Int
        let height: Int
        let encodeCount: Int
    }

    /// - Parameter decoded: the pixels to send, in memory (decoding once is what the worker's
    ///   memory budget reserves: `ImagePreparer.memoryEstimate`).
    func fit(_ decoded: VipsImage) throws(ImagingError) -> Fitted {
        let first = try decoded.jpeg(quality: policy.quality)
        if fits(first) {
            return Fitted(data: first, quality: policy.quality, width: decoded.width, height: decoded.height, encodeCount: 1)
        }
        var encodes = 1
        var image = decoded
        var model = QualityModel(quality: policy.quality, bytes: first.count)
        for _ in 0..<6 {
            // Up to three guided tries at this size.
            for _ in 0..<3 {
                guard let quality = model.highestQuality(under: target, floor: policy.minQuality, ceiling: policy.quality) else { break }
                let data = try image.jpeg(quality: quality)
                encodes += 1
                if fits(data) {
                    return Fitted(data: data, quality: quality, width: image.width, height: image.height, encodeCount: encodes)
                }
                model.learn(quality: quality, bytes: data.count)
                if quality == policy.minQuality { break }
            }
            let atFloor = model.predictedBytes(at: policy.minQuality)
            let scale = min(0.9, (Double(target) / atFloor).squareRoot())
            guard Double(min(image.width, image.height)) * scale >= Double(policy.minDimension) else { break }
            image = try image.map("downscale to fit the byte budget") { cvipsshim_resize($0, $1, scale) }
            // Bytes follow pixel count closely enough for a first guess at the new size.
            model = model.scaled(byArea: scale * scale)
        }
        throw ImagingError(
            .cannotFit, "the image cannot be encoded under \(policy.maxBytes) bytes, even at JPEG quality \(policy.minQuality) after downscaling")
    }

    /// Aim a little under the budget, so a slightly-off prediction still fits.
    private var target: Int { policy.maxBytes * 97 / 100 }

    private func fits(_ data: Data) -> Bool { data.count <= policy.maxBytes }
}

/// JPEG size as a function of quality: a typical libjpeg curve, scaled to match the encodes
/// actually measured for this image.
struct QualityModel {
    /// Relative size of a typical photo at each quality, 85 = 1.
    private static let curve: [(quality: Int, size: Double)] = [
        (30, 0.36), (40, 0.44), (50, 0.52), (60, 0.61), (70, 0.72), (75, 0.79), (80, 0.88), (85, 1.0),
        (90, 1.22), (95, 1.72), (100, 3.2)
    ]

    private var anchorQuality: Int
    private var anchorBytes: Double
    /// How much flatter or steeper this image's curve is than the typical one (1 = typical).
    private var steepness = 1.0

    init(quality: Int, bytes: Int) {
        anchorQuality = quality
        anchorBytes = Double(bytes)
    }

    func predictedBytes(at quality: Int) -> Double {
        let ratio = Self.relative(quality) / Self.relative(anchorQuality)
        return anchorBytes * pow(ratio, steepness)
    }

    /// The highest quality predicted to fit, or nil when even `floor` is predicted too big.
    func highestQuality(under budget: Int, floor: Int, ceiling: Int) -> Int? {
        stride(from: ceiling - 1, through: floor, by: -1).first { predictedBytes(at: $0) <= Double(budget) }
    }

    /// Fits the curve's steepness to a second measured point.
    mutating func learn(quality: Int, bytes: Int) {
        let curveRatio = log(Self.relative(quality) / Self.relative(anchorQuality))
        guard abs(curveRatio) > 1e-6 else { return }
        steepness = min(4, max(0.1, log(Double(bytes) / anchorBytes) / curveRatio))
    }

    func scaled(byArea factor: Double) -> QualityModel {
        var copy = self
        copy.anchorBytes *= factor
        return copy
    }

    private static func relative(_ quality: Int) -> Double {
        let q = min(100, max(30, quality))
        guard let upper = curve.firstIndex(where: { $0.quality >= q }) else { return curve[curve.count - 1].size }
        if curve[upper].quality == q || upper == 0 { return curve[upper].size }
        let (q0, s0) = curve[upper - 1], (q1, s1) = curve[upper]
        return s0 + (s1 - s0) * Double(q - q0) / Double(q1 - q0)
    }
}

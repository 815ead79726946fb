import CVipsShim
import Foundation

/// Encodes a decoded image as JPEG under the byte budget: the highest quality from a short
/// ladder that fits, and when even the lowest does not, a downscale by about
/// sqrt(budget / size) and another round. Always fits, or says why it cannot.
struct BudgetFitter {
    let policy: ImagePolicy

    struct Fitted {
        let data: Data
        let quality: Int
        let width: Int
        let height: Int
        let encodeCount: Int
    }

    func fit(_ decoded: VipsImage) throws(ImagingError) -> Fitted {
        var image = decoded
        var encodes = 0
        for _ in 0..<6 {
            var smallest: Data?
            for quality in qualityLadder() {
                let data = try image.jpeg(quality: quality)
                encodes += 1
                if data.count <= policy.maxBytes {
                    return Fitted(data: data, quality: quality, width: image.width, height: image.height, encodeCount: encodes)
                }
                smallest = data
            }
            // JPEG size grows roughly with pixel count: shrink the area by budget/size, with a
            // margin so one more round usually suffices.
            let ratio = Double(policy.maxBytes) / Double(smallest?.count ?? policy.maxBytes * 2)
            let scale = min(0.9, ratio.squareRoot() * 0.95)
            guard Double(min(image.width, image.height)) * scale >= Double(policy.minDimension) else { break }
            image = try image.map("downscale to fit the byte budget") { cvipsshim_resize($0, $1, scale) }
        }
        throw ImagingError(.cannotFit, "the image cannot be encoded under \(policy.maxBytes) bytes, even at JPEG quality \(policy.minQuality) after downscaling")
    }

    /// The start quality, then steps down to the floor: at most four encodes a round.
    private func qualityLadder() -> [Int] {
        let top = policy.quality
        let floor = min(policy.minQuality, top)
        let middle = [top - 10, top - 20].filter { $0 > floor }
        return [top] + middle + (floor < top ? [floor] : [])
    }
}

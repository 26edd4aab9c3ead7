/// What to salvage, and where: a new encrypted database with its own key and settings.
public struct RecoverRequest {
    public var source: OpenRequest
    public var destination: String
    public var destinationKey: KeyMaterial
    public var destinationSettings: CipherSettings
    /// Whether the destination takes the settings the source is read with (its page size,
    /// KDF and HMAC; a salt of its own), under any `destinationSettings` given.
    public var keepsSourceFormat = false
    /// Told of each leftover of an interrupted run beside the destination as it is removed.
    public var leftoverRemoved: LeftoverListener?

    public init(source: OpenRequest, destination: String, destinationKey: KeyMaterial, destinationSettings: CipherSettings = CipherSettings()) {
        self.source = source
        self.destination = destination
        self.destinationKey = destinationKey
        self.destinationSettings = destinationSettings
    }
}

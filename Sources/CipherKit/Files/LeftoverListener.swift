/// Hears of each temporary file of an interrupted run that an operation removes, as it
/// removes it. The operation's report lists them when it succeeds; a caller that must say
/// so when the operation then fails, and no report comes, keeps what it heard.
public typealias LeftoverListener = @Sendable (String) -> Void

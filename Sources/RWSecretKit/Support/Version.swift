/// The version of rwsecret.
public let version = "0.1.0"

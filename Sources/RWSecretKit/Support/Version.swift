/// The version of rwsecret.
package let version = "1.0.0"

//! Which implementation a peer is, from what it says of itself. What each
//! one does differently lives with the concern it touches (history paging,
//! answers, sends, media); [`Flavor`] is the configuration's enum.

pub use onebot_gateway_config::Flavor;

/// Picks the profile from `get_version_info.app_name`.
pub fn detect(app_name: &str) -> Flavor {
    let n = app_name.to_ascii_lowercase();
    if n.contains("napcat") {
        Flavor::NapCat
    } else if n.contains("llonebot") || n.contains("llbot") || n.contains("luckylillia") {
        Flavor::LlOneBot
    } else if n.contains("lagrange") {
        Flavor::Lagrange
    } else if n.contains("snowluma") {
        Flavor::SnowLuma
    } else if n.contains("go-cqhttp") || n.contains("gocqhttp") {
        Flavor::GoCqhttp
    } else {
        Flavor::Generic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_app_names() {
        assert_eq!(detect("NapCat.Onebot"), Flavor::NapCat);
        assert_eq!(detect("LLOneBot"), Flavor::LlOneBot);
        assert_eq!(detect("Lagrange.OneBot"), Flavor::Lagrange);
        assert_eq!(detect("SnowLuma"), Flavor::SnowLuma);
        assert_eq!(detect("go-cqhttp"), Flavor::GoCqhttp);
        assert_eq!(detect("something"), Flavor::Generic);
    }
}

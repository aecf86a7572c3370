#include "server/routing/site_selector.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

site_context site(std::vector<std::string> hosts) {
    site_context s;
    s.hosts = std::move(hosts);
    return s;
}

TEST(SelectSite, ALoneCatchAllSiteAnswersEveryHost) {
    const site_context only = site({});
    const std::vector<const site_context*> sites{&only};
    EXPECT_EQ(select_site(sites, "anything.test"), &only);
    EXPECT_EQ(select_site(sites, ""), &only);
}

TEST(SelectSite, ExactNamesWinOverWildcardsAndCatchAll) {
    const site_context any = site({});
    const site_context wildcard = site({"*.example.com"});
    const site_context exact = site({"www.example.com", "example.com"});
    const std::vector<const site_context*> sites{&any, &wildcard, &exact};
    EXPECT_EQ(select_site(sites, "WWW.Example.com"), &exact);
    EXPECT_EQ(select_site(sites, "example.com"), &exact);
    EXPECT_EQ(select_site(sites, "api.example.com"), &wildcard);
    EXPECT_EQ(select_site(sites, "a.b.example.com"), &any);
    EXPECT_EQ(select_site(sites, "other.test"), &any);
}

TEST(SelectSite, NoSiteForAnUnknownHostWithoutCatchAll) {
    const site_context a = site({"a.test"});
    const site_context b = site({"b.test"});
    const std::vector<const site_context*> sites{&a, &b};
    EXPECT_EQ(select_site(sites, "b.test"), &b);
    EXPECT_EQ(select_site(sites, "c.test"), nullptr);
    EXPECT_EQ(select_site(sites, ""), nullptr);
}

TEST(SelectSite, RedirectsComeAfterEveryRealSite) {
    site_context redirect = site({"a.test", "b.test"});
    redirect.redirect_https_port = 8443;
    const site_context plain_b = site({"b.test"});
    const site_context any = site({});
    EXPECT_EQ(select_site({&redirect, &plain_b}, "b.test"), &plain_b);
    EXPECT_EQ(select_site({&redirect, &plain_b}, "a.test"), &redirect);
    EXPECT_EQ(select_site({&redirect, &plain_b}, "c.test"), nullptr);
    // A site written for the address answering any host wins too, as Caddy's own routes do.
    EXPECT_EQ(select_site({&redirect, &any}, "a.test"), &any);
}

TEST(WildcardMatches, OneLabelUnderTheDomain) {
    EXPECT_TRUE(wildcard_matches("*.example.com", "A.example.COM"));
    EXPECT_FALSE(wildcard_matches("*.example.com", "example.com"));
    EXPECT_FALSE(wildcard_matches("*.example.com", "a.b.example.com"));
    EXPECT_FALSE(wildcard_matches("example.com", "example.com"));
}

}  // namespace
}  // namespace spindle::server

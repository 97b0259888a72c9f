package datasets

// Code below lists the public files of the benchmarks: path relative to the
// data root, canonical URL (pinned commit), size and sha256, as recorded in
// the datasets' MANIFEST. Files without a URL cannot be downloaded (they were
// rebuilt or are too large) and come from `hylaflow datasets fetch --from DIR`.

// knownFile is a File without the per-dataset flags (Optional), so that the
// table below stays one positional literal per file.
type knownFile struct {
	Path, URL string
	Size      int64
	SHA256    string
}

var knownFiles = map[string]knownFile{
	"planetoid/ind.cora.x":                  {"planetoid/ind.cora.x", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.x", 22119, "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab"},
	"planetoid/ind.cora.y":                  {"planetoid/ind.cora.y", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.y", 4054, "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1"},
	"planetoid/ind.cora.tx":                 {"planetoid/ind.cora.tx", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.tx", 148025, "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a"},
	"planetoid/ind.cora.ty":                 {"planetoid/ind.cora.ty", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.ty", 28135, "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad"},
	"planetoid/ind.cora.allx":               {"planetoid/ind.cora.allx", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.allx", 257305, "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543"},
	"planetoid/ind.cora.ally":               {"planetoid/ind.cora.ally", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.ally", 47959, "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71"},
	"planetoid/ind.cora.graph":              {"planetoid/ind.cora.graph", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.graph", 59847, "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d"},
	"planetoid/ind.cora.test.index":         {"planetoid/ind.cora.test.index", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.cora.test.index", 5000, "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875"},
	"planetoid/ind.citeseer.x":              {"planetoid/ind.citeseer.x", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.x", 31087, "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6"},
	"planetoid/ind.citeseer.y":              {"planetoid/ind.citeseer.y", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.y", 3014, "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924"},
	"planetoid/ind.citeseer.tx":             {"planetoid/ind.citeseer.tx", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.tx", 260321, "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21"},
	"planetoid/ind.citeseer.ty":             {"planetoid/ind.citeseer.ty", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.ty", 24135, "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce"},
	"planetoid/ind.citeseer.allx":           {"planetoid/ind.citeseer.allx", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.allx", 595021, "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668"},
	"planetoid/ind.citeseer.ally":           {"planetoid/ind.citeseer.ally", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.ally", 55623, "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95"},
	"planetoid/ind.citeseer.graph":          {"planetoid/ind.citeseer.graph", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.graph", 61987, "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7"},
	"planetoid/ind.citeseer.test.index":     {"planetoid/ind.citeseer.test.index", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.test.index", 5000, "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4"},
	"planetoid/ind.pubmed.x":                {"planetoid/ind.pubmed.x", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.x", 23172, "fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33"},
	"planetoid/ind.pubmed.y":                {"planetoid/ind.pubmed.y", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.y", 854, "e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3"},
	"planetoid/ind.pubmed.tx":               {"planetoid/ind.pubmed.tx", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.tx", 405505, "4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d"},
	"planetoid/ind.pubmed.ty":               {"planetoid/ind.pubmed.ty", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.ty", 12135, "ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd"},
	"planetoid/ind.pubmed.ally":             {"planetoid/ind.pubmed.ally", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.ally", 224739, "0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e"},
	"planetoid/ind.pubmed.graph":            {"planetoid/ind.pubmed.graph", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.graph", 471808, "5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9"},
	"planetoid/ind.pubmed.test.index":       {"planetoid/ind.pubmed.test.index", "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.pubmed.test.index", 6000, "b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5"},
	"planetoid-alt/pubmed.7z":               {"planetoid-alt/pubmed.7z", "https://raw.githubusercontent.com/yottacto/parameter-server/3cdb22c584aaab4534c94e4eb5dc2a229d037038/data/pubmed.7z", 3634143, "ef2a6816d10dfcb1e11cb16625b30ca097b477c3c79b873e048ec6c8b15af78b"},
	"hgcn/disease_nc/disease_nc.edges.csv":  {"hgcn/disease_nc/disease_nc.edges.csv", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/disease_nc/disease_nc.edges.csv", 7851, "08b2dcf00db1e6a8f491af5294dee98197f1251a63bc9190d05fb4e77507782e"},
	"hgcn/disease_nc/disease_nc.labels.npy": {"hgcn/disease_nc/disease_nc.labels.npy", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/disease_nc/disease_nc.labels.npy", 8480, "70be7f91a854d924f3b7ac423615d75b1f9ee2506261c44113de27cc2caadd51"},
	"hgcn/disease_lp/disease_lp.edges.csv":  {"hgcn/disease_lp/disease_lp.edges.csv", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/disease_lp/disease_lp.edges.csv", 22152, "b5b7e41bbfd28fc7f61590e5587622103ee9c3aa1b59911c74873a6f328dca07"},
	"hgcn/disease_lp/disease_lp.feats.npz":  {"hgcn/disease_lp/disease_lp.feats.npz", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/disease_lp/disease_lp.feats.npz", 227859, "b4a726b13598c036a75e1b49f08e92820553b972966ad950b8d4d5416eb339f8"},
	"hgcn/disease_lp/disease_lp.labels.npy": {"hgcn/disease_lp/disease_lp.labels.npy", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/disease_lp/disease_lp.labels.npy", 21448, "8f2b26602764fbb785b93775d9f71194f1f36920e185af8bc5c31aea07dde858"},
	"hgcn/airport/airport.p":                {"hgcn/airport/airport.p", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/airport/airport.p", 554100, "ab16b04cea3666e87dbd8a5bff3de68da61330f4604fa21082f7a17e806e64d8"},
	"hgcn/airport/routes.dat":               {"hgcn/airport/routes.dat", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/airport/routes.dat", 2377148, "bd373706238134f619c624c606dccc74c05c2582a977c489c81de501735f2390"},
	"textgcn/R8.txt":                        {"textgcn/R8.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/R8.txt", 120199, "4ab8362c508bf7b1c591bca4e4d72ff6e9ff7a730a94cb0a5dfddf237a7cc025"},
	"textgcn/R52.txt":                       {"textgcn/R52.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/R52.txt", 145420, "dd0c08ca54cb51be909f309525643fdc235efecf674a91d854306b939badd239"},
	"textgcn/ohsumed.txt":                   {"textgcn/ohsumed.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/ohsumed.txt", 389456, "724b8ed25eb3d99b90b86fdc4ef5e2450b386ff0ba348afe38f420cd61eccc16"},
	"textgcn/mr.txt":                        {"textgcn/mr.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/mr.txt", 134603, "184c1b3b7f9695174fcf949738a661ba9d798b0e500721d0644daab4d095e134"},
	"textgcn/corpus/R8.clean.txt":           {"textgcn/corpus/R8.clean.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/corpus/R8.clean.txt", 3360920, "5324d029f2b625baca68aab4cfd1ed0353b94f11f7a9dd2ccb5b1fa5b86d6541"},
	"textgcn/corpus/mr.clean.txt":           {"textgcn/corpus/mr.clean.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/corpus/mr.clean.txt", 1200403, "63d474f2a8251d4062697bf81dac5e9fac2a842c946beb1eb2a35729353398f5"},
	"textgcn/corpus/mr.txt":                 {"textgcn/corpus/mr.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/corpus/mr.txt", 1249120, "2ce386f81c1ebd45fd2c0d2a41e8702e78f2dbeeb88fc8f3cff680211f303689"},
	"textgcn/R8/train.txt":                  {"textgcn/R8/train.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/R8/train.txt", 3354423, "3ed60c905aaa95b96c3fc4afb6d14ad2e20106c59c5b9dda950dcb3075eecfbe"},
	"textgcn/R8/test.txt":                   {"textgcn/R8/test.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/R8/test.txt", 1195260, "2ba368c42e6808bc3dc68b8f7879eb07a2810ed137f0b304e2213b689677e561"},
	"textgcn/R52/test.txt":                  {"textgcn/R52/test.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/R52/test.txt", 1522483, "3524681b4e016359c946847e4201deb61ba8b760f4687b2611fcaa4ec167da3c"},
	"textgcn/corpus/R8.txt":                 {"textgcn/corpus/R8.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/corpus/R8.txt", 4502925, "c2758703ba8b3e29162e8e9f606e9a1f032c408cd9d76380f02c8ba16422cac7"},
	"textgcn/corpus/ohsumed.txt":            {"textgcn/corpus/ohsumed.txt", "https://raw.githubusercontent.com/yao8839836/text_gcn/962223652e9bb164ac2d83cd09fc7b8845ce860b/data/corpus/ohsumed.txt", 9436447, "c117cc9f36c3c121793f85955b47fba1bbb58a8eb051c638e3611544f11f5032"},
	// Rebuilt from planetoid-alt/pubmed.7z (the original is not reachable here); no URL.
	"planetoid/ind.pubmed.allx": {"planetoid/ind.pubmed.allx", "", 7578385, "99e0ede614ad1df3e6fe89f8443c5716204bb91f994db0dbdccea21ec2f1c47b"},
	// Built from textgcn-alt/R52/train.reconstructed.txt + textgcn/R52/test.txt; approximate, no URL.
	"textgcn/corpus/R52.txt": {"textgcn/corpus/R52.txt", "", 5745839, "b3cf8fc8de4057baa6b6175e6cdf6086c88115af8adde9c8cc92358d730ed2bb"},
	// Not available with a known checksum.
	"hgcn/disease_nc/disease_nc.feats.npz": {"hgcn/disease_nc/disease_nc.feats.npz", "https://raw.githubusercontent.com/HazyResearch/hgcn/a526385744da25fc880f3da346e17d0fe33817f8/data/disease_nc/disease_nc.feats.npz", 0, ""},
	"reddit/reddit.npz":                    {"reddit/reddit.npz", "", 0, ""},
	"reddit/reddit_adj.npz":                {"reddit/reddit_adj.npz", "", 0, ""},
}

"""Curated Chinese terms (and a few extra English ones) for the vocabulary-derived synonym groups.

Keyed by MeSH descriptor UI or Disease Ontology id. Each value: (Chinese terms, extra English
terms). The Chinese terms are standard clinical names of the same concept (not broader, not
narrower); a specialty may also have its common department name (儿科学 / 儿科).
"""

from __future__ import annotations

ZH: dict[str, tuple[list[str], list[str]]] = {
    # specialties (MeSH H02.403)
    "D000073316": (["成瘾医学"], []),
    "D000295": (["青少年医学"], []),
    "D000337": (["航空航天医学"], []),
    "D000776": (["麻醉学"], []),
    "D001524": (["行为医学"], []),
    "D003880": (["皮肤病学", "皮肤科"], []),
    "D054597": (["灾难医学"], []),
    "D004635": (["急诊医学", "急诊科"], []),
    "D005554": (["法医学"], []),
    "D058006": (["全科医学"], []),
    "D005826": (["医学遗传学"], []),
    "D005853": (["老年医学", "老年病学"], []),
    "D007388": (["内科学"], []),
    "D008887": (["军事医学"], []),
    "D009462": (["神经病学", "神经内科"], []),
    "D065126": (["姑息医学"], []),
    "D010336": (["病理学"], []),
    "D010372": (["儿科学", "儿科"], []),
    "D010810": (["康复医学"], []),
    "D011570": (["精神病学", "精神科"], []),
    "D011634": (["公共卫生"], []),
    "D011871": (["放射学", "放射科"], []),
    "D018456": (["生殖医学"], []),
    "D013178": (["运动医学"], []),
    "D017216": (["远程医疗"], []),
    "D014330": (["热带医学"], []),
    "D000078782": (["疫苗学"], []),
    "D002309": (["心脏病学", "心内科"], []),
    "D004704": (["内分泌学"], []),
    "D005762": (["消化病学", "胃肠病学"], []),
    "D006405": (["血液学"], []),
    "D055552": (["感染病学"], []),
    "D008495": (["肿瘤内科学", "肿瘤内科"], []),
    "D009398": (["肾脏病学"], []),
    "D015272": (["呼吸病学", "呼吸内科"], []),
    "D012219": (["风湿病学"], []),
    "D056508": (["睡眠医学"], []),
    "D013502": (["普通外科"], []),
    "D006176": (["妇科学", "妇科"], []),
    "D009493": (["神经外科"], []),
    "D009774": (["产科学", "产科"], []),
    "D009885": (["眼科学", "眼科"], []),
    "D009985": (["骨科学", "骨科"], []),
    "D010036": (["耳鼻咽喉科学", "耳鼻喉科"], []),
    "D013518": (["整形外科"], []),
    "D000071077": (["肿瘤外科"], []),
    "D013903": (["胸外科"], []),
    "D014572": (["泌尿外科学", "泌尿外科"], []),
    "D003107": (["结直肠外科"], []),
    # disease classes (MeSH tree C categories, F03)
    "D007239": (["感染"], []),
    "D009369": (["肿瘤"], []),
    "D009140": (["肌肉骨骼疾病"], []),
    "D004066": (["消化系统疾病"], []),
    "D009057": (["口腔疾病"], []),
    "D012140": (["呼吸道疾病"], []),
    "D010038": (["耳鼻咽喉疾病"], []),
    "D009422": (["神经系统疾病"], []),
    "D005128": (["眼病", "眼部疾病"], []),
    "D000091642": (["泌尿生殖系统疾病"], []),
    "D002318": (["心血管疾病"], []),
    "D006425": (["血液和淋巴系统疾病"], []),
    "D017437": (["皮肤和结缔组织疾病"], []),
    "D009750": (["营养和代谢性疾病"], []),
    "D004700": (["内分泌系统疾病"], []),
    "D007154": (["免疫系统疾病"], []),
    "D000820": (["动物疾病"], []),
    "D009784": (["职业病"], []),
    "D014947": (["创伤和损伤"], []),
    "D001523": (["精神障碍", "精神疾病"], []),
    # conditions
    "D000086382": (["新冠肺炎", "新型冠状病毒肺炎", "新冠"], []),
    "D003920": (["糖尿病"], ["diabetes"]),
    "D008516": (["中医", "中医学", "中医药", "传统中医"], ["TCM"]),
    "D057286": (["电子病历", "电子健康档案"], []),
    "D006973": (["高血压"], []),
    "D009765": (["肥胖", "肥胖症"], []),
    "D003866": (["抑郁症"], []),
    "D000544": (["阿尔茨海默病"], []),
    "D011014": (["肺炎"], []),
    "D014376": (["结核病"], []),
    "D001249": (["哮喘"], []),
}

CONDITIONS = (
    "COVID-19", "Diabetes Mellitus", "Medicine, Chinese Traditional", "Electronic Health Records",
    "Hypertension", "Obesity", "Depressive Disorder", "Alzheimer Disease", "Pneumonia",
    "Tuberculosis", "Asthma",
)

# Too broad to expand (hypernyms of much of the catalog) or headings rather than specialties.
EXCLUDED_SPECIALTIES = frozenset({
    "D008511",  # Medicine
    "D015510",  # Clinical Medicine
    "D013043",  # Specialties, Surgical (a heading)
    "D013568",  # Pathological Conditions, Signs and Symptoms
    "D064419",  # Chemically-Induced Disorders
    "D004781",  # Disorders of Environmental Origin (heading)
})

# Names written in capitals that are not ambiguous abbreviations (also listed in synonyms.yaml).
ALLOWED_ABBREVIATIONS = frozenset({"COVID-19", "COVID19"})

# Terms MeSH files under a preferred concept that are broader than the group ("Surgery" under
# General Surgery): a group must not hold a hypernym.
EXCLUDED_TERMS: dict[str, frozenset[str]] = {"D013502": frozenset({"Surgery"})}

DO_CANCER_ZH: dict[str, list[str]] = {
    "DOID:162": ["癌症", "恶性肿瘤"],
    "DOID:1324": ["肺癌"],
    "DOID:1612": ["乳腺癌"],
    "DOID:3571": ["肝癌"],
    "DOID:10534": ["胃癌"],
    "DOID:9256": ["结直肠癌"],
    "DOID:2394": ["卵巢癌"],
    "DOID:4362": ["宫颈癌"],
    "DOID:10283": ["前列腺癌"],
    "DOID:1793": ["胰腺癌"],
    "DOID:5041": ["食管癌"],
    "DOID:1781": ["甲状腺癌"],
    "DOID:1319": ["脑癌"],
    "DOID:263": ["肾癌"],
    "DOID:4159": ["皮肤癌"],
    "DOID:11054": ["膀胱癌"],
    "DOID:363": ["子宫癌"],
    "DOID:11934": ["头颈癌"],
}

"""A deterministic toy English→French grammar with gold word alignments.

It exists to train a small translator whose cross-attention is worth looking at: French moves
adjectives behind the noun, object pronouns in front of the verb, wraps negation around the
verb, contracts and elides words, and agrees articles, adjectives and participles in gender and
number. The grammar only builds what its rules get right (e.g. no reflexives, no être verbs, no
"de" + indefinite article); tests/core/test_data.py checks hand-built translations and, over a
whole corpus, that no elision or contraction is missed.

Conventions of the corpus:
- lower case, no punctuation, words separated by single spaces; an elided or contracted French
  form (``l'arbre``, ``j'ai``, ``au``) is one word and is aligned to every English word it
  stands for (``l'arbre`` → ``the`` and ``tree``; ``au`` → ``to`` and ``the``).
- ``do``/``does`` of English negation align to the French finite verb, and ``did`` to the
  auxiliary ``avoir``: they carry the tense and person that French puts on those words.
  ``not`` aligns to both ``ne`` and ``pas``. In "i ate the apple" → "j'ai mangé la pomme",
  ``ate`` aligns to both ``ai`` and ``mangé``. Multi-word prepositions and verbs align
  every word to every word ("in front of" → "devant", "look for" → "chercher").
- "a" and "some" (read "any" after a negation) become ``de`` under negation: "i do not see a
  cat" → "je ne vois pas de chat".
- English "you" is ``tu`` and "you all" is ``vous``; "your" is ``votre``/``vos`` when the
  subject is "you all", else ``ton``/``ta``/``tes``; "they" is ``ils`` (French's default for a
  group of unknown gender; "the girls" still agree as ``elles`` would). Plurals English cannot
  tell apart ("the sheep") are not sampled, so an English sentence has one reference translation.
- A few nouns have a second French word, as right as the first (OTHER_FRENCH: girl → fille or
  fillette, car → voiture or auto): training pairs use it two times in five, so the translator
  hesitates between the two as a translator of real text does; every held-out pair uses the first.
- Participles agree with a preceding object pronoun: "her" is feminine, "them", "us" and
  "you all" are masculine plural (French's default), "me" and "you" masculine singular.

Public: `make_corpus`, `english_sentences`, `translate` (with `Clause`, `NounPhrase`,
`PrepPhrase`), `translations`, `VOCABULARY`, `PHENOMENA`, `HELD_OUT`, `OTHER_FRENCH`.
"""
from __future__ import annotations

import functools
import itertools
import random
import re
from dataclasses import dataclass, replace
from typing import Callable, NamedTuple, Union

from .pair import Pair

# ---------------------------------------------------------------------------------------------
# Word tables. Category letters say which words can go together, so the sentences make sense:
#   P person  A animal  F food  D drink  T portable thing  C clothing  X something to read or
#   look at  W something written  M something heard  O openable  Y container  K buildable
#   U furniture  V vehicle  L place  B plant
# and where a noun can be: I "in"  N "on"  S "under"  R near/behind/in front of/next to
#   G a destination ("to the park").
# A plural of "-" marks a mass noun: only "the" or a possessive, never plural.

_NOUN_TABLE = """
man | men | homme | hommes | m | P
woman | women | femme | femmes | f | P
boy | boys | garçon | garçons | m | P
girl | girls | fille | filles | f | P
child | children | enfant | enfants | m | P
friend | friends | ami | amis | m | P
teacher | teachers | professeur | professeurs | m | P
doctor | doctors | médecin | médecins | m | P
baker | bakers | boulanger | boulangers | m | P
student | students | étudiant | étudiants | m | P
king | kings | roi | rois | m | P
queen | queens | reine | reines | f | P
mother | mothers | mère | mères | f | P
father | fathers | père | pères | m | P
brother | brothers | frère | frères | m | P
sister | sisters | sœur | sœurs | f | P
baby | babies | bébé | bébés | m | P
neighbour | neighbours | voisin | voisins | m | P
farmer | farmers | fermier | fermiers | m | P
singer | singers | chanteur | chanteurs | m | P
actress | actresses | actrice | actrices | f | P
grandmother | grandmothers | grand-mère | grands-mères | f | P
grandfather | grandfathers | grand-père | grands-pères | m | P
uncle | uncles | oncle | oncles | m | P
aunt | aunts | tante | tantes | f | P
policeman | policemen | policier | policiers | m | P
nurse | nurses | infirmière | infirmières | f | P
lawyer | lawyers | avocat | avocats | m | P
painter | painters | peintre | peintres | m | P
pupil | pupils | élève | élèves | m | P
cousin | cousins | cousin | cousins | m | P
son | sons | fils | fils | m | P
daughter | daughters | fille | filles | f | P
husband | husbands | mari | maris | m | P
wife | wives | femme | femmes | f | P
nephew | nephews | neveu | neveux | m | P
niece | nieces | nièce | nièces | f | P
soldier | soldiers | soldat | soldats | m | P
pilot | pilots | pilote | pilotes | m | P
waiter | waiters | serveur | serveurs | m | P
prince | princes | prince | princes | m | P
princess | princesses | princesse | princesses | f | P
dog | dogs | chien | chiens | m | A
cat | cats | chat | chats | m | A
horse | horses | cheval | chevaux | m | A
bird | birds | oiseau | oiseaux | m | A
mouse | mice | souris | souris | f | A
cow | cows | vache | vaches | f | A
sheep | sheep | mouton | moutons | m | A
pig | pigs | cochon | cochons | m | A
rabbit | rabbits | lapin | lapins | m | A
duck | ducks | canard | canards | m | A
fish | fish | poisson | poissons | m | A F
owl | owls | hibou | hiboux | m | A
wolf | wolves | loup | loups | m | A
fox | foxes | renard | renards | m | A
bear | bears | ours | ours | m | A
lion | lions | lion | lions | m | A
tiger | tigers | tigre | tigres | m | A
elephant | elephants | éléphant | éléphants | m | A
monkey | monkeys | singe | singes | m | A
frog | frogs | grenouille | grenouilles | f | A
snake | snakes | serpent | serpents | m | A
hen | hens | poule | poules | f | A
goat | goats | chèvre | chèvres | f | A
donkey | donkeys | âne | ânes | m | A
bee | bees | abeille | abeilles | f | A
ant | ants | fourmi | fourmis | f | A
spider | spiders | araignée | araignées | f | A
butterfly | butterflies | papillon | papillons | m | A
turtle | turtles | tortue | tortues | f | A
giraffe | giraffes | girafe | girafes | f | A
squirrel | squirrels | écureuil | écureuils | m | A
animal | animals | animal | animaux | m | A
whale | whales | baleine | baleines | f | A
apple | apples | pomme | pommes | f | F
cake | cakes | gâteau | gâteaux | m | F
egg | eggs | œuf | œufs | m | F
banana | bananas | banane | bananes | f | F
orange | oranges | orange | oranges | f | F
pear | pears | poire | poires | f | F
peach | peaches | pêche | pêches | f | F
strawberry | strawberries | fraise | fraises | f | F
cherry | cherries | cerise | cerises | f | F
carrot | carrots | carotte | carottes | f | F
potato | potatoes | pomme de terre | pommes de terre | f | F
tomato | tomatoes | tomate | tomates | f | F
sandwich | sandwiches | sandwich | sandwichs | m | F
pizza | pizzas | pizza | pizzas | f | F
lemon | lemons | citron | citrons | m | F
onion | onions | oignon | oignons | m | F
cookie | cookies | biscuit | biscuits | m | F
pie | pies | tarte | tartes | f | F
salad | salads | salade | salades | f | F
bread | - | pain | - | m | F
cheese | - | fromage | - | m | F
rice | - | riz | - | m | F
soup | - | soupe | - | f | F
meat | - | viande | - | f | F
chicken | - | poulet | - | m | F
chocolate | - | chocolat | - | m | F
water | - | eau | - | f | D
milk | - | lait | - | m | D
coffee | - | café | - | m | D
tea | - | thé | - | m | D
juice | - | jus | - | m | D
wine | - | vin | - | m | D
lemonade | - | limonade | - | f | D
book | books | livre | livres | m | T X O
letter | letters | lettre | lettres | f | T X W O
newspaper | newspapers | journal | journaux | m | T X
pen | pens | stylo | stylos | m | T
pencil | pencils | crayon | crayons | m | T
key | keys | clé | clés | f | T
bag | bags | sac | sacs | m | T O Y I
box | boxes | boîte | boîtes | f | T O Y I K
ball | balls | ballon | ballons | m | T
hat | hats | chapeau | chapeaux | m | T C
coat | coats | manteau | manteaux | m | T C
dress | dresses | robe | robes | f | T C
shirt | shirts | chemise | chemises | f | T C
shoe | shoes | chaussure | chaussures | f | T C
knife | knives | couteau | couteaux | m | T
fork | forks | fourchette | fourchettes | f | T
spoon | spoons | cuillère | cuillères | f | T
plate | plates | assiette | assiettes | f | T
glass | glasses | verre | verres | m | T Y
cup | cups | tasse | tasses | f | T Y
bottle | bottles | bouteille | bouteilles | f | T O Y
phone | phones | téléphone | téléphones | m | T
computer | computers | ordinateur | ordinateurs | m | T
clock | clocks | horloge | horloges | f | T
umbrella | umbrellas | parapluie | parapluies | m | T O
jewel | jewels | bijou | bijoux | m | T
toy | toys | jouet | jouets | m | T
game | games | jeu | jeux | m | T
painting | paintings | tableau | tableaux | m | T X
photo | photos | photo | photos | f | T X
map | maps | carte | cartes | f | T X
ticket | tickets | billet | billets | m | T
gift | gifts | cadeau | cadeaux | m | T O
ring | rings | bague | bagues | f | T
candle | candles | bougie | bougies | f | T
mirror | mirrors | miroir | miroirs | m | T
lamp | lamps | lampe | lampes | f | T
door | doors | porte | portes | f | O R
window | windows | fenêtre | fenêtres | f | O R
stone | stones | pierre | pierres | f | T
rope | ropes | corde | cordes | f | T
radio | radios | radio | radios | f | T M
song | songs | chanson | chansons | f | M W
poem | poems | poème | poèmes | m | X W
story | stories | histoire | histoires | f | X W
message | messages | message | messages | m | X W
table | tables | table | tables | f | U N S R K
chair | chairs | chaise | chaises | f | U N S R
bed | beds | lit | lits | m | U N S R
desk | desks | bureau | bureaux | m | U N S R
sofa | sofas | canapé | canapés | m | U N S R
shelf | shelves | étagère | étagères | f | U N R
wardrobe | wardrobes | armoire | armoires | f | U I O R
car | cars | voiture | voitures | f | V I S R
bike | bikes | vélo | vélos | m | V N R
bus | buses | bus | bus | m | V I R
boat | boats | bateau | bateaux | m | V N R K
train | trains | train | trains | m | V I R
plane | planes | avion | avions | m | V I R
truck | trucks | camion | camions | m | V I S R
taxi | taxis | taxi | taxis | m | V I R
house | houses | maison | maisons | f | L I R G K
school | schools | école | écoles | f | L I R G K
park | parks | parc | parcs | m | L I R G
garden | gardens | jardin | jardins | m | L I R G
city | cities | ville | villes | f | L I G
village | villages | village | villages | m | L I G
church | churches | église | églises | f | L I R G K
hospital | hospitals | hôpital | hôpitaux | m | L I R G K
castle | castles | château | châteaux | m | L I R G K
library | libraries | bibliothèque | bibliothèques | f | L I R G O
shop | shops | magasin | magasins | m | L I R G O
market | markets | marché | marchés | m | L I R G
forest | forests | forêt | forêts | f | L I R G
beach | beaches | plage | plages | f | L N G
station | stations | gare | gares | f | L I R G
museum | museums | musée | musées | m | L I R G O
restaurant | restaurants | restaurant | restaurants | m | L I R G O
hotel | hotels | hôtel | hôtels | m | L I R G
kitchen | kitchens | cuisine | cuisines | f | L I
bedroom | bedrooms | chambre | chambres | f | L I
bank | banks | banque | banques | f | L I R G
farm | farms | ferme | fermes | f | L I R G
street | streets | rue | rues | f | L I
island | islands | île | îles | f | L N G
airport | airports | aéroport | aéroports | m | L I R G
mountain | mountains | montagne | montagnes | f | L N G
field | fields | champ | champs | m | L I R
zoo | zoos | zoo | zoos | m | L I R G
theatre | theatres | théâtre | théâtres | m | L I R G
cinema | cinemas | cinéma | cinémas | m | L I R G
bakery | bakeries | boulangerie | boulangeries | f | L I R G
bridge | bridges | pont | ponts | m | L N S R K
tree | trees | arbre | arbres | m | B S R
flower | flowers | fleur | fleurs | f | B R
bush | bushes | buisson | buissons | m | B S R
leaf | leaves | feuille | feuilles | f | B
"""

# english | French masc. sg, fem. sg, masc. pl, fem. pl | position | masc. sg before a vowel | goes with
# Position: "pre" adjectives go before the French noun; "post" after it; "post2" after it too,
# and may follow a "pre" adjective in English ("the big red car"), an order English allows
# for colour, shape and origin but not for e.g. "happy" ("a sad old man", not "an old sad man").
_ADJECTIVE_TABLE = """
small | petit petite petits petites | pre | - | P A F T C U V L B X
big | grand grande grands grandes | pre | - | P A T U V L B
beautiful | beau belle beaux belles | pre | bel | P A T C U V L B
pretty | joli jolie jolis jolies | pre | - | P A T C U L B
young | jeune jeune jeunes jeunes | pre | - | P A B
old | vieux vieille vieux vieilles | pre | vieil | P A T C U V L B X
good | bon bonne bons bonnes | pre | - | P F D X
new | nouveau nouvelle nouveaux nouvelles | pre | nouvel | T C U V L X M
bad | mauvais mauvaise mauvais mauvaises | pre | - | F D X
fat | gros grosse gros grosses | pre | - | A F X
long | long longue longs longues | pre | - | X V M
red | rouge rouge rouges rouges | post2 | - | F T C U V L B X
blue | bleu bleue bleus bleues | post2 | - | T C U V L X
green | vert verte verts vertes | post2 | - | F T C U V L X
yellow | jaune jaune jaunes jaunes | post2 | - | F T C U V L B X
black | noir noire noirs noires | post2 | - | A T C U V X
white | blanc blanche blancs blanches | post2 | - | A T C U V L B X
grey | gris grise gris grises | post2 | - | A T C U V L
brown | marron marron marron marron | post2 | - | A T C U V
pink | rose rose roses roses | post2 | - | T C U V L B
purple | violet violette violets violettes | post2 | - | T C U V B
round | rond ronde ronds rondes | post2 | - | F T U
square | carré carrée carrés carrées | post2 | - | T U
french | français française français françaises | post2 | - | P F D V X M
english | anglais anglaise anglais anglaises | post2 | - | P F D V X M
italian | italien italienne italiens italiennes | post2 | - | P F D V X M
spanish | espagnol espagnole espagnols espagnoles | post2 | - | P F D V X M
german | allemand allemande allemands allemandes | post2 | - | P F D V X M
chinese | chinois chinoise chinois chinoises | post2 | - | P F D V X M
japanese | japonais japonaise japonais japonaises | post2 | - | P F D V X M
happy | heureux heureuse heureux heureuses | post | - | P A
sad | triste triste tristes tristes | post | - | P A
tired | fatigué fatiguée fatigués fatiguées | post | - | P A
angry | fâché fâchée fâchés fâchées | post | - | P A
sick | malade malade malades malades | post | - | P A
hungry | affamé affamée affamés affamées | post | - | P A
fast | rapide rapide rapides rapides | post | - | A V
slow | lent lente lents lentes | post | - | A V
heavy | lourd lourde lourds lourdes | post | - | T U X
light | léger légère légers légères | post | - | T C
hot | chaud chaude chauds chaudes | post | - | F D
cold | froid froide froids froides | post | - | F D
dirty | sale sale sales sales | post | - | A T C U V
empty | vide vide vides vides | post | - | Y
full | plein pleine pleins pleines | post | - | Y
strong | fort forte forts fortes | post | - | P A D
rich | riche riche riches riches | post | - | P
famous | célèbre célèbre célèbres célèbres | post | - | P L X M
funny | drôle drôle drôles drôles | post | - | P A X M
quiet | calme calme calmes calmes | post | - | P A L
noisy | bruyant bruyante bruyants bruyantes | post | - | P A V L
smart | intelligent intelligente intelligents intelligentes | post | - | P A
polite | poli polie polis polies | post | - | P
strange | étrange étrange étranges étranges | post | - | P A T L
modern | moderne moderne modernes modernes | post | - | T U V L
sweet | sucré sucrée sucrés sucrées | post | - | F D
broken | cassé cassée cassés cassées | post | - | T U V
expensive | cher chère chers chères | post | - | T C V
wet | mouillé mouillée mouillés mouillées | post | - | A T C
dry | sec sèche secs sèches | post | - | T C
soft | doux douce doux douces | post | - | A T C
hard | dur dure durs dures | post | - | T U
"""

# english base | 3rd sg | past | French infinitive | present je..ils ("-": regular -er) |
# participle ("-": regular -er) | objects (letters above, "*" any) | flags:
# h only people do it, g "to" + recipient, d "to" + destination, f "for" + beneficiary.
# "_" joins a multi-word English verb ("look_for" → "look for" → "chercher").
_VERB_TABLE = """
see | sees | saw | voir | vois vois voit voyons voyez voient | vu | * |
watch | watches | watched | regarder | - | - | P A T C V L B |
love | loves | loved | aimer | - | - | * |
want | wants | wanted | vouloir | veux veux veut voulons voulez veulent | voulu | A F D T C U V B X M |
find | finds | found | trouver | - | - | P A F T C V B X M | f
eat | eats | ate | manger | mange manges mange mangeons mangez mangent | mangé | F |
drink | drinks | drank | boire | bois bois boit buvons buvez boivent | bu | D |
take | takes | took | prendre | prends prends prend prenons prenez prennent | pris | F D T C V X | h
buy | buys | bought | acheter | achète achètes achète achetons achetez achètent | acheté | A F D T C U V B X L | hf
sell | sells | sold | vendre | vends vends vend vendons vendez vendent | vendu | A F D T C U V B X L | hg
wash | washes | washed | laver | - | - | P A F T C U V | hf
draw | draws | drew | dessiner | - | - | P A T U V L B | hf
paint | paints | painted | peindre | peins peins peint peignons peignez peignent | peint | P T U V L B | hf
carry | carries | carried | porter | - | - | P A F T C X | d
open | opens | opened | ouvrir | ouvre ouvres ouvre ouvrons ouvrez ouvrent | ouvert | O | h
close | closes | closed | fermer | - | - | O | h
hear | hears | heard | entendre | entends entends entend entendons entendez entendent | entendu | P A V M |
follow | follows | followed | suivre | suis suis suit suivons suivez suivent | suivi | P A V |
call | calls | called | appeler | appelle appelles appelle appelons appelez appellent | appelé | P A | h
help | helps | helped | aider | - | - | P A |
meet | meets | met | rencontrer | - | - | P |
know | knows | knew | connaître | connais connais connaît connaissons connaissez connaissent | connu | P A L |
prefer | prefers | preferred | préférer | préfère préfères préfère préférons préférez préfèrent | préféré | * |
hide | hides | hid | cacher | - | - | A F T C X |
cook | cooks | cooked | cuisiner | - | - | F | hf
write | writes | wrote | écrire | écris écris écrit écrivons écrivez écrivent | écrit | W | hgf
build | builds | built | construire | construis construis construit construisons construisez construisent | construit | K | hf
break | breaks | broke | casser | - | - | T U |
clean | cleans | cleaned | nettoyer | nettoie nettoies nettoie nettoyons nettoyez nettoient | nettoyé | T C U V L | hf
push | pushes | pushed | pousser | - | - | P A T U V |
pull | pulls | pulled | tirer | - | - | A T U V |
throw | throws | threw | lancer | lance lances lance lançons lancez lancent | lancé | F T | hg
catch | catches | caught | attraper | - | - | A T |
lose | loses | lost | perdre | perds perds perd perdons perdez perdent | perdu | A T C X |
forget | forgets | forgot | oublier | - | - | P T C X | h
bring | brings | brought | apporter | - | - | F D T C X B | gdf
choose | chooses | chose | choisir | choisis choisis choisit choisissons choisissez choisissent | choisi | * | hf
finish | finishes | finished | finir | finis finis finit finissons finissez finissent | fini | F D X | h
keep | keeps | kept | garder | - | - | A F T C X B | f
visit | visits | visited | visiter | - | - | L | h
kiss | kisses | kissed | embrasser | - | - | P A |
feed | feeds | fed | nourrir | nourris nourris nourrit nourrissons nourrissez nourrissent | nourri | P A | h
touch | touches | touched | toucher | - | - | P A T C U V B |
admire | admires | admired | admirer | - | - | P A T C V L B | h
repair | repairs | repaired | réparer | - | - | T U V O | hf
give | gives | gave | donner | - | - | A F D T C X B | hg
send | sends | sent | envoyer | envoie envoies envoie envoyons envoyez envoient | envoyé | T X W | hgd
show | shows | showed | montrer | - | - | A F T C V X B | hg
look_for | looks_for | looked_for | chercher | - | - | P A F T C V X |
listen_to | listens_to | listened_to | écouter | - | - | P A M |
wait_for | waits_for | waited_for | attendre | attends attends attend attendons attendez attendent | attendu | P A V |
"""

# Persons 0..5 are je, tu, il/elle, nous, vous, ils/elles.
SUBJECT_PRONOUNS = {"i": ("je", 0), "you": ("tu", 1), "he": ("il", 2), "she": ("elle", 2),
                    "we": ("nous", 3), "you all": ("vous", 4), "they": ("ils", 5)}
# english → (French, feminine?, plural?) — the last two drive past-participle agreement.
OBJECT_PRONOUNS = {"me": ("me", False, False), "you": ("te", False, False),
                   "him": ("le", False, False), "her": ("la", True, False),
                   "us": ("nous", False, True), "you all": ("vous", False, True),
                   "them": ("les", False, True)}
# A clause never has its subject's person as object: "i see me" would need the reflexive.
_SAME_PERSON = {"i": {"me", "us"}, "we": {"me", "us"},
                "you": {"you", "you all"}, "you all": {"you", "you all"}}
AVOIR = ("ai", "as", "a", "avons", "avez", "ont")
# masc. sg, fem. sg, plural; "your (you all)" is the form when the subject is "you all".
POSSESSIVES = {"my": ("mon", "ma", "mes"), "your": ("ton", "ta", "tes"),
               "your (you all)": ("votre", "votre", "vos"), "his": ("son", "sa", "ses"),
               "her": ("son", "sa", "ses"), "our": ("notre", "notre", "nos"),
               "their": ("leur", "leur", "leurs")}
NUMBERS = {"two": "deux", "three": "trois", "four": "quatre", "five": "cinq", "six": "six",
           "seven": "sept", "eight": "huit", "nine": "neuf", "ten": "dix"}
# english → (French, the noun letters it takes, takes an indefinite article?). "de" prepositions
# refuse indefinites: "près de des arbres" would need yet another rule.
PREPOSITIONS = {"in": ("dans", "I", True), "on": ("sur", "N", True), "under": ("sous", "S", True),
                "behind": ("derrière", "R", True), "in front of": ("devant", "R", True),
                "near": ("près de", "R", False), "next to": ("à côté de", "R", False),
                "to": ("à", "", True), "with": ("avec", "PA", True), "for": ("pour", "P", True)}
_LOCATIVE = ("in", "on", "under", "behind", "in front of", "near", "next to")


class Adverb(NamedTuple):
    fr: str
    mid: bool         # after the finite verb in French, before the verb in English
    tense: str        # "any", "present" or "past"
    negatable: bool   # "je ne mange pas parfois" is wrong French, so "sometimes" is not
    needs_plural: bool = False  # "together"
    clashes_with_pp: bool = False  # "here"/"there" next to "in the house"


ADVERBS = {
    "often": Adverb("souvent", True, "any", True),
    "always": Adverb("toujours", True, "any", True),
    "sometimes": Adverb("parfois", True, "any", False),
    "also": Adverb("aussi", True, "any", False),
    "today": Adverb("aujourd'hui", False, "any", True),
    "now": Adverb("maintenant", False, "present", True),
    "yesterday": Adverb("hier", False, "past", True),
    "tomorrow": Adverb("demain", False, "present", True),
    "here": Adverb("ici", False, "any", True, clashes_with_pp=True),
    "there": Adverb("là", False, "any", True, clashes_with_pp=True),
    "slowly": Adverb("lentement", False, "any", True),
    "quickly": Adverb("rapidement", False, "any", True),
    "together": Adverb("ensemble", False, "any", True, needs_plural=True),
    "every day": Adverb("tous les jours", False, "present", True),
    "this morning": Adverb("ce matin", False, "any", True),
    "tonight": Adverb("ce soir", False, "present", True),
    "last night": Adverb("hier soir", False, "past", True),
}


class Noun(NamedTuple):
    en_sg: str
    en_pl: str | None  # None: a mass noun
    fr_sg: str
    fr_pl: str | None
    fem: bool
    cats: frozenset[str]


class Adjective(NamedTuple):
    fr: tuple[str, str, str, str]  # masc. sg, fem. sg, masc. pl, fem. pl
    position: str                  # "pre", "post" or "post2"
    before_vowel: str | None       # "bel", "vieil", "nouvel"
    cats: frozenset[str]


class Verb(NamedTuple):
    en: tuple[str, str, str]  # base, 3rd person singular, past
    fr: str                   # infinitive
    present: tuple[str, ...]  # je, tu, il, nous, vous, ils
    participle: str
    objects: frozenset[str] | None  # None: any noun
    flags: str


def _rows(table: str) -> list[list[str]]:
    return [[f.strip() for f in line.split("|")] for line in table.strip().splitlines()]


def _parse_nouns() -> dict[str, Noun]:
    out = {}
    for en_sg, en_pl, fr_sg, fr_pl, gender, cats in _rows(_NOUN_TABLE):
        mass = en_pl == "-"
        out[en_sg] = Noun(en_sg, None if mass else en_pl, fr_sg, None if mass else fr_pl,
                          gender == "f", frozenset(cats.split()))
    return out


def _parse_adjectives() -> dict[str, Adjective]:
    return {en: Adjective(tuple(forms.split()), pos, None if alt == "-" else alt,
                          frozenset(cats.split()))
            for en, forms, pos, alt, cats in _rows(_ADJECTIVE_TABLE)}


def _parse_verbs() -> dict[str, Verb]:
    out = {}
    for base, third, past, inf, present, participle, objects, flags in _rows(_VERB_TABLE):
        stem = inf[:-2]
        if present == "-":  # a regular -er verb
            present = " ".join(stem + end for end in ("e", "es", "e", "ons", "ez", "ent"))
        out[base.replace("_", " ")] = Verb(
            tuple(w.replace("_", " ") for w in (base, third, past)), inf, tuple(present.split()),
            stem + "é" if participle == "-" else participle,
            None if objects == "*" else frozenset(objects.split()), flags)
    return out


NOUNS = _parse_nouns()
ADJECTIVES = _parse_adjectives()
VERBS = _parse_verbs()

# A second French word for a few nouns, as right as the first: real translations differ so, and a translator
# trained on both hesitates between them, which sampling shows. Training pairs use the second two times in five
# (make_corpus); `translate` without `second`, and so every held-out pair, uses the first.
_OTHER_TABLE = """
girl | fillette | fillettes | f
car | auto | autos | f
bike | bicyclette | bicyclettes | f
"""
OTHER_FRENCH = {en: NOUNS[en]._replace(fr_sg=sg, fr_pl=pl, fem=gender == "f")
                for en, sg, pl, gender in _rows(_OTHER_TABLE)}
OTHER_SHARE = 0.4  # under a half: the first word stays the likelier, what greedy decoding writes


def _vocabulary() -> dict[str, tuple[tuple[str, str], ...]]:
    nouns = tuple((n.en_sg, n.fr_sg) for n in NOUNS.values())
    return {
        "noun": nouns,
        "adjective": tuple((en, a.fr[0]) for en, a in ADJECTIVES.items()),
        "verb": tuple((en, v.fr) for en, v in VERBS.items()),
        "subject pronoun": tuple((en, fr) for en, (fr, _) in SUBJECT_PRONOUNS.items()),
        "object pronoun": tuple((en, fr) for en, (fr, *_) in OBJECT_PRONOUNS.items()),
        "possessive": tuple((en, "/".join(dict.fromkeys(fr))) for en, fr in POSSESSIVES.items()),
        "number": tuple(NUMBERS.items()),
        "determiner": (("the", "le/la/les"), ("a", "un/une"), ("some", "des"), ("any", "de")),
        "preposition": tuple((en, fr) for en, (fr, *_) in PREPOSITIONS.items()) + (("of", "de"),),
        "adverb": tuple((en, a.fr) for en, a in ADVERBS.items()),
        "negation": (("not", "ne … pas"),),
    }


# The words the grammar knows, by part of speech: (English, French) lemma pairs for a model card.
VOCABULARY = _vocabulary()

# Names of the phenomena a Pair can show. The first nine are the ones cross-attention is
# studied for; agreement_* mean a feminine / plural noun phrase with an adjective that agrees.
PHENOMENA = ("adj_after", "adj_before", "agreement_fem", "agreement_plural", "elision",
             "contraction", "negation", "object_pronoun", "compound_past",
             "participle_agreement", "partitive_de", "possessive", "number", "preposition",
             "adverb", "irregular_plural")

_DETERMINERS = ("the", "a", "some", "my", "your", "his", "her", "our", "their", *NUMBERS)
_MIN_WORDS, _MAX_WORDS = 3, 20  # English words per sentence


# ---------------------------------------------------------------------------------------------
# Structured sentences: `translate` turns one into a Pair; the samplers below make random ones.

@dataclass(frozen=True)
class NounPhrase:
    """Determiner + 0-2 adjectives (at most one per French position) + noun [+ "of" + phrase].

    `det` is "the", "a", "some" (plural; it reads "any" after a negation), a possessive or a
    number two..ten; `noun` and `adjectives` are English lemmas (keys of NOUNS, ADJECTIVES).
    """
    noun: str
    det: str = "the"
    plural: bool = False
    adjectives: tuple[str, ...] = ()
    of: NounPhrase | None = None

    def __post_init__(self):
        problem = _noun_phrase_problem(self)
        if problem:
            raise ValueError(problem)


def _noun_phrase_problem(np: NounPhrase) -> str | None:
    noun = NOUNS.get(np.noun)
    if noun is None:
        return f"Unknown noun {np.noun!r}: the grammar knows the keys of NOUNS."
    if np.det not in _DETERMINERS:
        return f"Unknown determiner {np.det!r}: use one of {', '.join(_DETERMINERS)}."
    if noun.en_pl is None and (np.plural or np.det not in ("the", *POSSESSIVES)):
        return f"{np.noun!r} is a mass noun: it takes 'the' or a possessive, in the singular."
    if np.plural != (np.det in NUMBERS or np.det == "some") and np.det not in ("the", *POSSESSIVES):
        return f"{np.det!r} needs plural={np.det != 'a'}."
    unknown = [a for a in np.adjectives if a not in ADJECTIVES]
    if unknown:
        return f"Unknown adjectives {unknown}: the grammar knows the keys of ADJECTIVES."
    positions = [ADJECTIVES[a].position == "pre" for a in np.adjectives]
    if positions.count(True) > 1 or positions.count(False) > 1:
        return "At most one adjective before the French noun and one after it."
    if np.of and np.of.det in ("a", "some"):
        return "An 'of' phrase takes 'the', a possessive or a number (de + un/des is left out)."
    return None


@dataclass(frozen=True)
class PrepPhrase:
    """A preposition (a key of PREPOSITIONS) and its noun phrase: "in the house"."""
    prep: str
    np: NounPhrase

    def __post_init__(self):
        if self.prep not in PREPOSITIONS:
            raise ValueError(f"Unknown preposition {self.prep!r}: use one of {list(PREPOSITIONS)}.")
        if self.np.det in ("a", "some") and not PREPOSITIONS[self.prep][2]:
            raise ValueError(f"{self.prep!r} ends in French 'de', which takes no indefinite article here.")


@dataclass(frozen=True)
class Clause:
    """Subject + verb + object [+ prepositional phrase] [+ adverb], present or past, maybe negated.

    `subject` is a key of SUBJECT_PRONOUNS or a NounPhrase; `obj` a key of OBJECT_PRONOUNS or a
    NounPhrase; `verb` a key of VERBS ("see", "look for"); `adverb` a key of ADVERBS.
    """
    subject: Union[str, NounPhrase]
    verb: str
    obj: Union[str, NounPhrase]
    past: bool = False
    negated: bool = False
    pp: PrepPhrase | None = None
    adverb: str | None = None

    def __post_init__(self):
        problem = _clause_problem(self)
        if problem:
            raise ValueError(problem)


def _plural_subject(subject) -> bool:
    return subject.plural if isinstance(subject, NounPhrase) else subject in ("we", "you all", "they")


def _adverb_problem(adverb: str, past: bool, negated: bool, plural: bool, has_pp: bool) -> str | None:
    a = ADVERBS[adverb]
    if a.tense != "any" and (a.tense == "past") != past:
        return f"{adverb!r} goes only with the {a.tense} tense."
    if negated and not a.negatable:
        return f"{adverb!r} cannot stand in a negated clause."
    if a.needs_plural and not plural:
        return f"{adverb!r} needs a plural subject."
    if a.clashes_with_pp and has_pp:
        return f"{adverb!r} clashes with a place phrase."
    return None


def _clause_problem(c: Clause) -> str | None:
    if isinstance(c.subject, str) and c.subject not in SUBJECT_PRONOUNS:
        return f"Unknown subject {c.subject!r}: use a NounPhrase or one of {list(SUBJECT_PRONOUNS)}."
    if isinstance(c.obj, str) and c.obj not in OBJECT_PRONOUNS:
        return f"Unknown object {c.obj!r}: use a NounPhrase or one of {list(OBJECT_PRONOUNS)}."
    if c.verb not in VERBS:
        return f"Unknown verb {c.verb!r}: the grammar knows the keys of VERBS."
    if isinstance(c.obj, str) and c.obj in _SAME_PERSON.get(c.subject, ()):
        return f"{c.subject!r} … {c.obj!r} would need a reflexive pronoun, which the grammar leaves out."
    if c.adverb is not None:
        if c.adverb not in ADVERBS:
            return f"Unknown adverb {c.adverb!r}: the grammar knows the keys of ADVERBS."
        return _adverb_problem(c.adverb, c.past, c.negated, _plural_subject(c.subject), c.pp is not None)
    return None


# ---------------------------------------------------------------------------------------------
# Translation. English is written left to right and each part remembers its word indices; the
# French is then assembled in French order as (word, English indices, tag) tokens, and a last
# pass elides and contracts, merging the tokens' alignments.

_NONE = frozenset()
_VOWELS = frozenset("aeiouàâäéèêëîïôöùûüœh")
_H_ASPIRE = frozenset({"hibou", "hiboux", "huit"})  # "le hibou", not "l'hibou"
_ELIDED = {"le": "l'", "la": "l'", "je": "j'", "ne": "n'", "me": "m'", "te": "t'", "de": "d'"}
_CONTRACTED = {("à", "le"): "au", ("à", "les"): "aux", ("de", "le"): "du", ("de", "les"): "des"}


def _vowel_initial(word: str) -> bool:
    return bool(word) and word[0] in _VOWELS and word not in _H_ASPIRE


class _Build:
    """The English words written so far, and what the sentence shows."""

    def __init__(self, second: Callable[[str], bool] | None = None):
        self.second = second  # whether a noun with a second French word (OTHER_FRENCH) takes it; None: never
        self.en: list[str] = []
        self.phenomena: set[str] = set()
        self.combos: set[str] = set()

    def add(self, text: str) -> frozenset[int]:
        start = len(self.en)
        self.en.extend(text.split())
        return frozenset(range(start, len(self.en)))


class _NPSrc(NamedTuple):
    """English word indices of a noun phrase's parts."""
    det: frozenset[int]
    adjs: dict[str, frozenset[int]]
    noun: frozenset[int]
    of: tuple[frozenset[int], _NPSrc] | None


def _words(text: str, src: frozenset[int]) -> list[tuple[str, frozenset[int], str]]:
    return [(w, src, "") for w in text.split()]


def _np_en(b: _Build, np: NounPhrase, negated: bool = False) -> _NPSrc:
    noun = NOUNS[np.noun]
    adjs = sorted(np.adjectives, key=lambda a: ADJECTIVES[a].position != "pre")  # "big red car"
    head = noun.en_pl if np.plural else noun.en_sg
    det = "any" if np.det == "some" and negated else np.det
    if det == "a" and (adjs[0] if adjs else head)[0] in "aeiou":
        det = "an"
    d = b.add(det)
    a = {adj: b.add(adj) for adj in adjs}
    n = b.add(head)
    of = (b.add("of"), _np_en(b, np.of)) if np.of else None
    return _NPSrc(d, a, n, of)


def _adj_fr(adjective: str, fem: bool, plural: bool, next_word: str) -> str:
    adj = ADJECTIVES[adjective]
    if adj.before_vowel and not fem and not plural and _vowel_initial(next_word):
        return adj.before_vowel  # "un bel arbre", "le vieil homme"
    return adj.fr[2 * plural + fem]


def _det_fr(det: str, fem: bool, plural: bool, next_word: str, partitive: bool,
            pre_adj: bool, vous: bool) -> tuple[str, str]:
    if det == "the":
        return ("les" if plural else "la" if fem else "le"), "def"
    if det in NUMBERS:
        return NUMBERS[det], ""
    if det in ("a", "some"):
        if partitive or (plural and pre_adj):  # "pas de chat", "de petits chats"
            return "de", ""
        return ("des" if plural else "une" if fem else "un"), ""
    masc, femi, pl = POSSESSIVES["your (you all)" if vous and det == "your" else det]
    if plural:
        return pl, ""
    return (femi if fem and not _vowel_initial(next_word) else masc), ""  # "mon école"


def _french_noun(b: _Build, noun: str) -> Noun:
    """The noun's French word: its second one (OTHER_FRENCH) where the build's `second` says so."""
    return OTHER_FRENCH[noun] if b.second is not None and noun in OTHER_FRENCH and b.second(noun) else NOUNS[noun]


def _np_fr(b: _Build, np: NounPhrase, src: _NPSrc, partitive: bool = False, vous: bool = False):
    noun = _french_noun(b, np.noun)
    pre = [a for a in np.adjectives if ADJECTIVES[a].position == "pre"]
    post = [a for a in np.adjectives if ADJECTIVES[a].position != "pre"]
    head = (noun.fr_pl if np.plural else noun.fr_sg).split()
    toks = [(_adj_fr(a, noun.fem, np.plural, head[0]), src.adjs[a], "") for a in pre]
    toks += [(w, src.noun, "") for w in head]
    toks += [(_adj_fr(a, noun.fem, np.plural, ""), src.adjs[a], "") for a in post]
    partitive = partitive and np.det in ("a", "some")
    det, tag = _det_fr(np.det, noun.fem, np.plural, toks[0][0], partitive, bool(pre), vous)
    toks.insert(0, (det, src.det, tag))
    if np.of:
        toks += [("de", src.of[0], "")] + _np_fr(b, np.of, src.of[1], vous=vous)
    _note_np(b, np, noun, pre, post, partitive)
    return toks


def _note_np(b: _Build, np: NounPhrase, noun: Noun, pre: list, post: list, partitive: bool):
    seen = b.phenomena
    if pre:
        seen.add("adj_before")
    if post:
        seen.add("adj_after")
    if np.adjectives:
        seen.update(("agreement_fem",) * noun.fem + ("agreement_plural",) * np.plural)
        b.combos.update(f"adj:{a}+{np.noun}" for a in np.adjectives)
    if np.det in POSSESSIVES:
        seen.add("possessive")
    elif np.det in NUMBERS:
        seen.add("number")
    if partitive:
        seen.add("partitive_de")
    if np.plural and _irregular_plural(noun):
        seen.add("irregular_plural")


def _irregular_plural(noun: Noun) -> bool:
    sg, pl = noun.fr_sg.split()[0], noun.fr_pl.split()[0]
    return pl != sg + "s" and not (sg[-1] in "sxz" and pl == sg)


class _ClauseSrc(NamedTuple):
    """English word indices of a clause's parts."""
    subj: object     # frozenset[int] for a pronoun, _NPSrc for a noun phrase
    do: frozenset[int]   # "do", "does" or "did" of a negation
    not_: frozenset[int]
    verb: frozenset[int]
    obj: object
    pp: tuple[frozenset[int], _NPSrc] | None
    adverb: frozenset[int]


def _clause_en(b: _Build, c: Clause) -> _ClauseSrc:
    verb = VERBS[c.verb]
    np_subject = isinstance(c.subject, NounPhrase)
    third = c.subject in ("he", "she") or (np_subject and not c.subject.plural)
    subj = _np_en(b, c.subject) if np_subject else b.add(c.subject)
    do = not_ = adverb = _NONE
    if c.negated:
        do, not_ = b.add("did" if c.past else "does" if third else "do"), b.add("not")
    mid = c.adverb is not None and ADVERBS[c.adverb].mid
    if mid:
        adverb = b.add(c.adverb)
    base, third_form, past_form = verb.en
    v = b.add(base if c.negated else past_form if c.past else third_form if third else base)
    obj = _np_en(b, c.obj, c.negated) if isinstance(c.obj, NounPhrase) else b.add(c.obj)
    pp = (b.add(c.pp.prep), _np_en(b, c.pp.np)) if c.pp else None
    if c.adverb is not None and not mid:
        adverb = b.add(c.adverb)
    return _ClauseSrc(subj, do, not_, v, obj, pp, adverb)


def _clause_fr(b: _Build, c: Clause, s: _ClauseSrc):
    verb, neg, vous = VERBS[c.verb], c.negated, c.subject == "you all"
    if isinstance(c.subject, NounPhrase):
        toks, person = _np_fr(b, c.subject, s.subj, vous=vous), 5 if c.subject.plural else 2
    else:
        fr, person = SUBJECT_PRONOUNS[c.subject]
        toks = [(fr, s.subj, "")]
    pronoun = c.obj if isinstance(c.obj, str) else None
    adverb = ADVERBS[c.adverb] if c.adverb else None
    toks += _words("ne", s.not_) if neg else []
    toks += _words(OBJECT_PRONOUNS[pronoun][0], s.obj) if pronoun else []  # "je le vois"
    if c.past:  # "did" carries the tense the auxiliary carries; else the English past verb does
        toks.append((AVOIR[person], s.do if neg else s.verb, ""))
    else:
        toks.append((verb.present[person], s.verb | s.do, ""))
    toks += _words("pas", s.not_) if neg else []
    toks += _words(adverb.fr, s.adverb) if adverb and adverb.mid else []  # "j'ai souvent vu"
    toks += [(_participle(b, verb, pronoun), s.verb, "")] if c.past else []
    toks += [] if pronoun else _np_fr(b, c.obj, s.obj, partitive=neg, vous=vous)
    if c.pp:
        toks += _words(PREPOSITIONS[c.pp.prep][0], s.pp[0]) + _np_fr(b, c.pp.np, s.pp[1], vous=vous)
    toks += _words(adverb.fr, s.adverb) if adverb and not adverb.mid else []
    _note_clause(b, c, pronoun)
    return toks


def _participle(b: _Build, verb: Verb, pronoun: str | None) -> str:
    """Agrees with an object pronoun, which comes before it: "je l'ai vue", "je les ai vus"."""
    if pronoun is None:
        return verb.participle
    _, fem, plural = OBJECT_PRONOUNS[pronoun]
    form = verb.participle + ("e" if fem else "")
    form += "s" if plural and not form.endswith("s") else ""
    if form != verb.participle:
        b.phenomena.add("participle_agreement")
    return form


def _note_clause(b: _Build, c: Clause, pronoun: str | None):
    flags = (("negation", c.negated), ("object_pronoun", pronoun), ("compound_past", c.past),
             ("preposition", c.pp), ("adverb", c.adverb))
    b.phenomena.update(name for name, present in flags if present)
    if pronoun is None:
        b.combos.add(f"verb:{c.verb}+{c.obj.noun}")


def _finish(b: _Build, toks) -> list[tuple[str, frozenset[int]]]:
    """Contract (à le → au) and elide (le arbre → l'arbre), merging the words' alignments."""
    out, i = [], 0
    while i < len(toks):
        word, src, _ = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ("", _NONE, "")
        after = toks[i + 2][0] if i + 2 < len(toks) else ""
        contracts = (word, nxt[0]) in _CONTRACTED and nxt[2] == "def"
        if contracts and not (nxt[0] == "le" and _vowel_initial(after)):  # "à l'école" stays
            out.append((_CONTRACTED[word, nxt[0]], src | nxt[1]))
            b.phenomena.add("contraction")
            i += 2
        elif word in _ELIDED and _vowel_initial(nxt[0]):
            out.append((_ELIDED[word] + nxt[0], src | nxt[1]))
            b.phenomena.add("elision")
            i += 2
        else:
            out.append((word, src))
            i += 1
    return out


def translate(item: Clause | NounPhrase | PrepPhrase, second: Callable[[str], bool] | None = None) -> Pair:
    """The English sentence or phrase, its French translation and their gold alignment. A noun that has a second
    French word (OTHER_FRENCH) takes it where `second(noun)` is true (asked once per noun phrase, in French order);
    without `second`, every noun takes its first."""
    b = _Build(second)
    if isinstance(item, Clause):
        toks = _clause_fr(b, item, _clause_en(b, item))
    elif isinstance(item, PrepPhrase):
        src = (b.add(item.prep), _np_en(b, item.np))
        toks = _words(PREPOSITIONS[item.prep][0], src[0]) + _np_fr(b, item.np, src[1])
        b.phenomena.add("preposition")
    elif isinstance(item, NounPhrase):
        toks = _np_fr(b, item, _np_en(b, item))
    else:
        raise TypeError(f"translate takes a Clause, NounPhrase or PrepPhrase, not {type(item).__name__}.")
    words = _finish(b, toks)
    alignment = tuple(sorted((s, t) for t, (_, src) in enumerate(words) for s in src))
    return Pair(" ".join(b.en), " ".join(w for w, _ in words), alignment,
                frozenset(b.phenomena), frozenset(b.combos))


def translations(item: Clause | NounPhrase | PrepPhrase) -> frozenset[str]:
    """Every right French translation of `item`: each noun that has a second French word written with either."""
    asked: list[str] = []
    translate(item, lambda noun: asked.append(noun) or False)
    out = set()
    for picks in itertools.product((False, True), repeat=len(asked)):
        chosen = iter(picks)
        out.add(translate(item, lambda noun: next(chosen)).tgt)
    return frozenset(out)


# ---------------------------------------------------------------------------------------------
# Sampling. Category letters keep the sentences sensible: people read, animals do not.

@functools.lru_cache(maxsize=128)  # ~45 letter sets occur (verbs' objects, prepositions); bounded all the same
def _nouns_with(letters: str) -> tuple[str, ...]:
    return tuple(n for n, noun in NOUNS.items() if noun.cats & set(letters))


_PEOPLE, _ANIMATE = _nouns_with("P"), _nouns_with("PA")
_OBJECT_NOUNS = {v: tuple(NOUNS) if verb.objects is None else _nouns_with("".join(verb.objects))
                 for v, verb in VERBS.items()}
_TAKES_PRONOUNS = {v: verb.objects is None or "P" in verb.objects for v, verb in VERBS.items()}
# noun → (adjectives before it, after it, after it and allowed after a "pre" one in English)
_ADJS = {n: tuple(tuple(a for a, adj in ADJECTIVES.items() if adj.cats & noun.cats and adj.position in p)
                  for p in (("pre",), ("post", "post2"), ("post2",)))
         for n, noun in NOUNS.items()}
_POSSESSIVE_DETS = ("my", "your", "his", "her", "our", "their")
_VERB_KEYS, _SUBJECT_KEYS, _NUMBER_KEYS = tuple(VERBS), tuple(SUBJECT_PRONOUNS), tuple(NUMBERS)


def _sample_det(rng: random.Random, noun: Noun, indefinite: bool) -> tuple[str, bool]:
    if noun.en_pl is None:
        return (rng.choice(_POSSESSIVE_DETS) if rng.random() < 0.3 else "the"), False
    r = rng.random()
    if r < 0.40 or (r >= 0.77 and not indefinite):
        det, plural = "the", rng.random() < 0.35
    elif r < 0.65:
        det, plural = rng.choice(_POSSESSIVE_DETS), rng.random() < 0.35
    elif r < 0.77:
        det, plural = rng.choice(_NUMBER_KEYS), True
    else:
        det, plural = ("a", False) if r < 0.92 else ("some", True)
    if plural and noun.en_pl == noun.en_sg and det in ("the", *_POSSESSIVE_DETS):
        plural = False  # "the sheep" could be one or many; French would have to guess
    return det, plural


def _sample_adjectives(rng: random.Random, noun: str, most: int) -> tuple[str, ...]:
    pre, post, post2 = _ADJS[noun]
    r = rng.random()
    if r < 0.45 or most == 0:
        return ()
    if r < 0.85 or most == 1 or not (pre and post2):
        pool = pre if pre and (not post or rng.random() < 0.4) else post
        return (rng.choice(pool),) if pool else ()
    return rng.choice(pre), rng.choice(post2)


def _sample_np(rng: random.Random, nouns: tuple[str, ...], indefinite: bool = True,
               of_ok: bool = False, most_adjectives: int = 2) -> NounPhrase:
    noun = rng.choice(nouns)
    det, plural = _sample_det(rng, NOUNS[noun], indefinite)
    adjectives = _sample_adjectives(rng, noun, most_adjectives)
    of = None
    if of_ok and det == "the" and rng.random() < 0.08:  # "the car of the boys"
        of = _sample_np(rng, _PEOPLE, indefinite=False, most_adjectives=1)
    return NounPhrase(noun, det, plural, adjectives, of)


def _sample_object(rng: random.Random, verb: str, subject) -> Union[str, NounPhrase]:
    if _TAKES_PRONOUNS[verb] and rng.random() < 0.3:
        banned = _SAME_PERSON.get(subject, ()) if isinstance(subject, str) else ()
        return rng.choice([p for p in OBJECT_PRONOUNS if p not in banned])
    return _sample_np(rng, _OBJECT_NOUNS[verb], of_ok=True)


def _sample_pp(rng: random.Random, verb: Verb) -> PrepPhrase:
    kinds = ["place", "place", "with"] + [k for k, f in (("to", "g"), ("to-place", "d"), ("for", "f"))
                                          if f in verb.flags]
    kind = rng.choice(kinds)
    if kind == "place":
        prep = rng.choice(_LOCATIVE)
        nouns = _nouns_with(PREPOSITIONS[prep][1])
    else:
        prep = "to" if kind == "to-place" else kind
        nouns = {"with": _ANIMATE, "for": _PEOPLE, "to": _PEOPLE, "to-place": _nouns_with("G")}[kind]
    return PrepPhrase(prep, _sample_np(rng, nouns, indefinite=PREPOSITIONS[prep][2]))


def _sample_clause(rng: random.Random) -> Clause:
    verb = rng.choice(_VERB_KEYS)
    if rng.random() < 0.45:
        subject = rng.choice(_SUBJECT_KEYS)
    else:
        subject = _sample_np(rng, _PEOPLE if "h" in VERBS[verb].flags else _ANIMATE)
    past, negated = rng.random() < 0.5, rng.random() < 0.3
    obj = _sample_object(rng, verb, subject)
    pp = _sample_pp(rng, VERBS[verb]) if rng.random() < 0.35 else None
    adverb = None
    if rng.random() < 0.25:
        plural = _plural_subject(subject)
        adverb = rng.choice([a for a in ADVERBS
                             if not _adverb_problem(a, past, negated, plural, pp is not None)])
    return Clause(subject, verb, obj, past, negated, pp, adverb)


def _sample_pair(rng: random.Random) -> tuple[Clause, Pair]:
    """A clause of 3 to 20 English words and its translation with every noun's first French word."""
    while True:
        clause = _sample_clause(rng)
        pair = translate(clause)
        if _MIN_WORDS <= pair.src.count(" ") + 1 <= _MAX_WORDS:
            return clause, pair


# ---------------------------------------------------------------------------------------------
# Held-out combinations and the corpus.

_HELD_OUT_SEED, _HELD_OUT_FRACTION = 20240601, 0.04


def _held_out() -> frozenset[str]:
    """A fixed 4% of the (adjective, noun) and (verb, object noun) pairs the sampler can make.

    Fixed (not drawn from the corpus seed), so every corpus and model card holds out the same ones.
    """
    rng = random.Random(_HELD_OUT_SEED)
    adj = sorted(f"adj:{a}+{n}" for n, (pre, post, _) in _ADJS.items() for a in pre + post)
    verb = sorted(f"verb:{v}+{n}" for v, nouns in _OBJECT_NOUNS.items() for n in nouns)
    return frozenset(rng.sample(adj, round(_HELD_OUT_FRACTION * len(adj)))
                     + rng.sample(verb, round(_HELD_OUT_FRACTION * len(verb))))


# Word combinations only valid and test sentences contain: they test generalization.
HELD_OUT = _held_out()


def make_corpus(seed: int = 0, n_train: int = 40000, n_valid: int = 500,
                n_test: int = 500) -> dict[str, list[Pair]]:
    """Train, valid and test pairs, all distinct; valid and test each contain a held-out combination
    (see HELD_OUT) that no training pair contains."""
    rng, other = random.Random(seed), random.Random(f"{seed}:other French words")  # English stays seed's alone
    second = lambda noun: other.random() < OTHER_SHARE  # noqa: E731 - a training pair's draw of each second word
    seen: set[str] = set()
    train: list[Pair] = []
    held: list[Pair] = []
    n_held = n_valid + n_test
    for _ in range(50 * (n_train + n_held) + 1000):  # a bound, in case the sizes cannot be met
        if len(train) >= n_train and len(held) >= n_held:
            break
        clause, pair = _sample_pair(rng)
        bucket, size = (held, n_held) if pair.combos & HELD_OUT else (train, n_train)
        if len(bucket) < size and pair.src not in seen:
            seen.add(pair.src)
            bucket.append(replace(pair, also=translations(clause) - {pair.tgt}) if bucket is held
                          else translate(clause, second))
    else:
        raise RuntimeError(f"Could not draw {n_train} + {n_held} distinct sentences; ask for fewer.")
    leaked = [p.src for p in train if p.combos & HELD_OUT]
    if leaked:  # the split's promise, checked rather than assumed
        raise AssertionError(f"Training pairs contain held-out combinations: {leaked[:3]}")
    return {"train": train, "valid": held[:n_valid], "test": held[n_valid:]}


# The English words the builders write themselves (_np_en, _clause_en): "an" before a vowel, "any" for "some"
# under a negation, the negation's auxiliaries, and "of" between two noun phrases.
_BUILDER_WORDS = ("an", "any", "do", "does", "did", "not", "of")


def english_words() -> frozenset[str]:
    """Every word the grammar writes in English: the source side of translate-en-fr and all of lm-en's text
    (tests/core/test_data.py checks it against a corpus). A key such as "your (you all)" gives its words."""
    entries = [*(n.en_sg for n in NOUNS.values()), *(n.en_pl for n in NOUNS.values() if n.en_pl), *ADJECTIVES,
               *(form for verb in VERBS.values() for form in verb.en), *SUBJECT_PRONOUNS, *OBJECT_PRONOUNS,
               *POSSESSIVES, *NUMBERS, *PREPOSITIONS, *ADVERBS, *_DETERMINERS, *_BUILDER_WORDS]
    return frozenset(word for entry in entries for word in re.findall(r"[a-z]+", entry))


def english_sentences(seed: int, n: int) -> list[str]:
    """n distinct English sentences from the same grammar (no held-out combination), for a
    language model."""
    rng = random.Random(seed)
    out: dict[str, None] = {}  # ordered and distinct
    for _ in range(50 * n + 1000):
        if len(out) >= n:
            return list(out)
        _, pair = _sample_pair(rng)
        if not pair.combos & HELD_OUT:
            out[pair.src] = None
    raise RuntimeError(f"Could not draw {n} distinct sentences; ask for fewer.")

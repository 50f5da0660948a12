/**
 * The phrasings the grouping engine treats specially. Hand-made and small on purpose: every entry is
 * a phrasing agents actually use for one of the frequent problems (a timeout, a refused
 * credential, a rate limit…), so two reports that say the same thing in different words — or in
 * German, Spanish, French, Italian or Portuguese — share a concept token (`#timeout`). Entries
 * never name a tool or a corpus sentence: they are the shared vocabulary of agent feedback.
 * They were written alongside the evaluation corpus, so its figures flatter them; the held-out
 * set in docs/development.md (Grouping quality) is the fairer measure.
 *
 * Matching runs on lowercased text without diacritics (`délai` is written `delai` here).
 */

/**
 * Multi-word phrasings → a concept (or, last, one plain word). Applied in order, before the
 * text is split into words.
 */
export const PHRASE_CONCEPTS: ReadonlyArray<readonly [RegExp, string]> = [
  // Timeouts: English, then the other languages' usual words for it.
  [
    /\b(?:timed?[\s-]?out|time[\s-]?outs?|took (?:too|way too|far too) long|taking (?:too|forever)|deadline exceeded|never (?:returned|responded|came back|finished|completed)|no response (?:after|within|for)|hung (?:for|after|until)|hangs? (?:for|until|forever)|still (?:waiting|running|pending) after|request (?:hung|hangs)|kept spinning)\b/g,
    '#timeout',
  ],
  [
    /\b(?:zeit ?uberschreitung|zeitlimit uberschritten|antwortet nicht|keine antwort|tiempo de espera(?: agotado)?|se agoto el tiempo|tiempo agotado|no respondio|delai (?:d'attente )?(?:depasse|expire)|temps d'attente|expire apres|n'a jamais repondu|pas de reponse|tempo (?:scaduto|esgotado|limite)|nessuna risposta)\b/g,
    '#timeout',
  ],
  // Refused credentials and permissions (401 and 403 alike: agents use them interchangeably).
  [
    /\b(?:permission denied|access denied|not (?:authorized|authorised|allowed|permitted)|insufficient (?:scope|permissions?|privileges?)|missing (?:scope|permissions?)|invalid (?:api )?(?:token|credentials|key)|bad credentials|auth(?:entication)? (?:failed|failure|error)|zugriff verweigert|keine berechtigung|nicht autorisiert|acceso denegado|sin permisos?|no autorizado|permiso denegado|acces refuse|non autorise|permission refusee|droits insuffisants|accesso negato|non autorizzato|acesso negado)\b/g,
    '#auth',
  ],
  // Rate limiting.
  [
    /\b(?:rate[\s-]?limit(?:ed|ing|s)?|too many requests|quota exceeded|throttl(?:ed|ing)|slow down|ratenbegrenzung|zu viele anfragen|demasiadas solicitudes|limite de (?:tasa|velocidad)|trop de requetes|limite de debit|troppe richieste)\b/g,
    '#ratelimit',
  ],
  // Something the agent asked for is not there.
  [
    /\b(?:not found|(?:could ?n[o']t|can ?n[o']t|cannot|unable to|does ?n[o']t|did ?n[o']t) find|no such|does ?n[o']t exist|did ?n[o']t exist|no longer exists|nicht gefunden|existiert nicht|no encontrad[oa]|no existe|introuvable|n'existe pas|non trovato|nao encontrado)\b/g,
    '#notfound',
  ],
  // The far side broke.
  [
    /\b(?:internal server error|server error|bad gateway|service unavailable|errore interno|interner serverfehler|error interno(?: del servidor)?|erreur interne(?: du serveur)?)\b/g,
    '#servererror',
  ],
  // Empty answers.
  [
    /\b(?:empty (?:list|array|result|results|response|page)|no results?|zero results|nothing (?:came )?back|returned nothing|leere (?:liste|antwort|ergebnisse?)|keine ergebnisse|resultados? vacios?|lista vacia|sin resultados|ningun resultado|liste vide|reponse vide|aucun resultat|nessun risultato)\b/g,
    '#empty',
  ],
  // Malformed input or output.
  [
    /\b(?:invalid json|malformed json|json parse error|unexpected token|could not parse|couldn'?t parse|failed to parse|parse error|parsing error|not valid json|unparseable)\b/g,
    '#parse',
  ],
  // A parameter or setting that has no effect.
  [
    /\b(?:(?:is|are|was|were|gets?|seems?|seem to be|being) (?:silently )?(?:ignored|disregarded|not applied|not honou?red|not respected)|ignor(?:es|ing|ed)|has no effect|have no effect|(?:is|are|was|were) not (?:used|passed|forwarded|picked up)|(?:does ?n[o']t|did ?n[o']t) (?:use|pass|forward|pick up)|takes? no effect|does(?: ?n[o']t|n't) (?:do anything|take effect|apply)|wird ignoriert|werden ignoriert|se ignora|se ignoran|no se aplica|est ignoree?s?|sont ignorees?|n'est pas applique|viene ignorat[oa]|e ignorad[oa])\b/g,
    '#ignored',
  ],
  // Text that comes back as the wrong characters.
  [
    /\b(?:garbled|mangled|mojibake|replacement characters?|corrupt(?:ed)? characters|wrong encoding|encoding (?:problem|issue|error)|decoded (?:as|wrongly)|zeichensalat|falsche kodierung|caracteres (?:corruptos|raros|extranos)|salen corruptos|mal codificad[oa]s?|caracteres illisibles|mauvais encodage|caratteri (?:strani|corrotti))\b/g,
    '#garbled',
  ],
  // Output cut short.
  [
    /\b(?:truncat(?:ed|es|ion|ing)|cut off|cut short|ends? (?:abruptly|mid[\s-]?\w+|in the middle)|stops? at exactly|incomplete (?:content|output|file)|abgeschnitten|truncad[oa]|cortad[oa]|tronquee?|troncat[oa])\b/g,
    '#truncated',
  ],
  // Something sent was too big.
  [
    /\b(?:too (?:large|big)|payload too large|entity too large|exceeds? the (?:\w+ )?(?:size )?limit|size limit(?: exceeded)?|zu gross|demasiado grande|trop (?:volumineux|gros|grand)|troppo grande)\b/g,
    '#toolarge',
  ],
  // What the tool cannot handle at all: a format, a kind of input.
  [
    /\b(?:unsupported|not supported|(?:does ?n[o']t|do ?n[o']t|can ?n[o']t|cannot) (?:support|handle|accept)|only (?:supports?|accepts?|handles?)|isn'?t supported|aren'?t supported|no support for|no decoder|cannot be (?:read|opened|decoded)|nicht unterstutzt|wird nicht unterstutzt|werden nicht unterstutzt|no (?:es )?soportad[oa]s?|no compatible|non pris en charge|non supportee?s?|pas supportee?s?|non supportato)\b/g,
    '#unsupported',
  ],
  // A thing that is there already.
  [
    /\b(?:already exists?|exists? already|already (?:there|present|taken|in use)|existiert (?:bereits|schon)|bereits vorhanden|gibt es (?:bereits|schon)|ya existe|existe deja|deja existant)\b/g,
    '#exists',
  ],
  // Over a bound: a maximum, a quota, a limit (sizes have #toolarge).
  [
    /\b(?:exceed(?:s|ed|ing)?|over the (?:limit|maximum|max)|above the (?:limit|maximum|max)|more than the maximum|maximum (?:of|is)|limit (?:exceeded|reached|hit)|hit the (?:\w+ )?limit|uberschreitet|uberschritten|supera(?:do)?|excede|depasse|depasser)\b/g,
    '#exceeded',
  ],
  // Something the call needed and did not get.
  [
    /\b(?:missing|is required|are required|must provide|must be provided|mandatory|fehlt|fehlen|erforderlich|pflichtfeld|falta(?:n)?|obligatori[oa]|requerid[oa]|manquante?s?|obligatoire|requis)\b/g,
    '#missing',
  ],
  // Refused as malformed.
  [
    /\b(?:invalid|not (?:a )?valid|ungultig|no (?:es )?valid[oa]|invalid[oa]|invalide|non valide|pas valide)\b/g,
    '#invalid',
  ],
  // The machine ran out of room: disk, memory.
  [
    /\b(?:no space left|out of (?:disk )?space|disk (?:is )?full|disk quota|enospc|not enough (?:disk )?space|kein (?:freier )?speicherplatz|speicherplatz (?:voll|erschopft)|festplatte (?:ist )?voll|sin espacio|disco lleno|plus d'espace|disque plein|espace disque insuffisant|spazio esaurito|disco pieno|sem espaco|disco cheio)\b/g,
    '#diskfull',
  ],
  // Turned the wrong way: an image or a scan.
  [
    /\b(?:rotated|sideways|upside[\s-]?down|wrong orientation|orientation (?:is )?(?:wrong|ignored|lost)|exif orientation|auto[\s-]?rotat\w*|gedreht|hochkant|girad[oa]s?|rotad[oa]s?|tournee?s?|pivotee?s?|ruotat[oaie])\b/g,
    '#rotated',
  ],
  // Protected by a password.
  [
    /\b(?:password[\s-]?protected|encrypted|decrypt\w*|passwortgeschutzt|verschlusselt|protegid[oa] (?:con|por) contrasena|cifrad[oa]|protegee? par (?:un )?mot de passe|chiffree?|protett[oa] da password|cifrat[oa]|protegid[oa] por senha|criptografad[oa])\b/g,
    '#encrypted',
  ],
  // Multi-word names of frequent things, in English and the other languages → one word.
  [/\b(?:time ?zones?|tz|zonas? horarias?|fuseaux? horaires?|fusi? orari[oa]?)\b/g, 'timezone'],
  [
    /\b(?:env(?:ironment)? ?var(?:iable)?s?|variables? de entorno|variables? d'environnement|variabil[ei] d'ambiente)\b/g,
    'envvar',
  ],
];

/** HTTP status codes → the concept agents mean by them (only when they read as a status). */
export const STATUS_CONCEPTS: Readonly<Record<string, string>> = {
  '400': '#badrequest',
  '401': '#auth',
  '403': '#auth',
  '404': '#notfound',
  '408': '#timeout',
  '409': '#conflict',
  '413': '#toolarge',
  '422': '#badrequest',
  '429': '#ratelimit',
  '500': '#servererror',
  '502': '#servererror',
  '503': '#servererror',
  '504': '#timeout',
};

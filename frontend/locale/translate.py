"""Fill the Italian and Spanish catalogues from the table below, then compile every catalogue.

Run after `makemessages` (see docs/frontend.md); the .mo files are committed, so a
fresh machine needs no GNU gettext to serve the three languages.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# msgid: (Italian, Spanish); a plural msgid maps to ((it one, it many), (es one, es many)).
T: dict[str, tuple] = {
    "Classic": ("Classica", "Clásica"),
    "One pass": ("Un passaggio", "Una pasada"),
    "Egyptian campaign": ("Campagna d'Egitto", "Campaña de Egipto"),
    "Forty cards": ("Quaranta carte", "Cuarenta cartas"),
    "Forty cards, open": ("Quaranta carte, scoperta", "Cuarenta cartas, descubierta"),
    "Forty cards, house rules": ("Quaranta carte, regole di casa", "Cuarenta cartas, reglas de la casa"),
    "Double pyramid": ("Piramide doppia", "Pirámide doble"),
    "Unlimited redeals": ("Rigiri illimitati", "Reciclajes sin límite"),
    "Pyramid": ("Piramide", "Pirámide"),
    "Card in play from the stock": ("Carta in gioco dal tallone", "Carta en juego del mazo"),
    "Skip to content": ("Vai al contenuto", "Ir al contenido"),
    "Piramide: the daily pyramid solitaire": ("Piramide: il solitario della piramide del giorno", "Piramide: el solitario de la pirámide del día"),
    "One pyramid solitaire deal a day, the same for everyone, with a leaderboard.": (
        "Una smazzata di solitario della piramide al giorno, uguale per tutti, con la classifica.",
        "Una mano de solitario de la pirámide al día, la misma para todos, con clasificación.",
    ),
    "Offline": ("Offline", "Sin conexión"),
    "You are offline": ("Sei offline", "Estás sin conexión"),
    "Piramide needs the network to deal and to play. Try again once you are connected.": (
        "Piramide ha bisogno della rete per dare le carte e per giocare. Riprova quando sei connesso.",
        "Piramide necesita la red para repartir y para jugar. Vuelve a intentarlo cuando tengas conexión.",
    ),
    "Try again": ("Riprova", "Reintentar"),
    "Main": ("Principale", "Principal"),
    "Leaderboards": ("Classifiche", "Clasificaciones"),
    "Race a friend": ("Sfida un amico", "Reta a un amigo"),
    "Sign out": ("Esci", "Salir"),
    "Sign in": ("Accedi", "Entrar"),
    "Sign up": ("Registrati", "Regístrate"),
    "Seed commitment (SHA-256)": ("Impegno sul seme (SHA-256)", "Compromiso de la semilla (SHA-256)"),
    "A deal fixed in advance": ("Una smazzata fissata in anticipo", "Un reparto fijado de antemano"),
    "Seed": ("Seme", "Semilla"),
    "To check it, compute the SHA-256 of this text, as ASCII with nothing after it: it must equal the commitment.": (
        "Per verificarlo, calcola lo SHA-256 di questo testo, in ASCII e senza nulla dopo: deve essere uguale all'impegno.",
        "Para comprobarlo, calcula el SHA-256 de este texto, en ASCII y sin nada detrás: debe ser igual al compromiso.",
    ),
    "The seed and the deal it gives are also here:": (
        "Il seme e la smazzata che ne viene sono anche qui:",
        "La semilla y el reparto que da también están aquí:",
    ),
    "The seed that deals this challenge was drawn when it was scheduled and stays secret until the day is over. Then it is published here, with how to check that its SHA-256 is this commitment: the deal cannot have been changed along the way.": (
        "Il seme che distribuisce le carte di questa sfida è stato estratto quando è stata programmata e resta segreto finché la giornata non è finita. Allora viene pubblicato qui, con il modo di verificare che il suo SHA-256 è questo impegno: la smazzata non può essere stata cambiata nel frattempo.",
        "La semilla que reparte este desafío se sorteó al programarlo y sigue secreta hasta que termina el día. Entonces se publica aquí, con cómo comprobar que su SHA-256 es este compromiso: el reparto no puede haberse cambiado por el camino.",
    ),
    "Salt": ("Sale", "Sal"),
    "The seed that deals this challenge was drawn when it was scheduled and stays secret until the day is over, together with a random salt hashed with it so that nobody can work the seed out from the commitment. Then both are published here, with how to check that their SHA-256 is this commitment: the deal cannot have been changed along the way.": (
        "Il seme che distribuisce le carte di questa sfida è stato estratto quando è stata programmata e resta segreto finché la giornata non è finita, insieme a un sale casuale che entra nell'hash con esso, così nessuno può ricavare il seme dall'impegno. Allora sono pubblicati entrambi qui, con il modo di verificare che il loro SHA-256 è questo impegno: la smazzata non può essere stata cambiata nel frattempo.",
        "La semilla que reparte este desafío se sorteó al programarlo y sigue secreta hasta que termina el día, junto con una sal aleatoria que entra en el hash con ella, para que nadie pueda deducir la semilla del compromiso. Entonces se publican las dos aquí, con cómo comprobar que su SHA-256 es este compromiso: el reparto no puede haberse cambiado por el camino.",
    ),
    "Many failed sign-ins for this username: try again in %(seconds)s second (the wait is never longer than %(longest)s seconds).": (
        (
            "Molti accessi non riusciti per questo nome utente: riprova tra %(seconds)s secondo (l'attesa non supera mai %(longest)s secondi).",
            "Molti accessi non riusciti per questo nome utente: riprova tra %(seconds)s secondi (l'attesa non supera mai %(longest)s secondi).",
        ),
        (
            "Muchos intentos de acceso fallidos para este nombre de usuario: vuelve a intentarlo en %(seconds)s segundo (la espera nunca pasa de %(longest)s segundos).",
            "Muchos intentos de acceso fallidos para este nombre de usuario: vuelve a intentarlo en %(seconds)s segundos (la espera nunca pasa de %(longest)s segundos).",
        ),
    ),
    "Too many failed sign-ins: try again in %(minutes)s minute.": (
        ("Troppi accessi non riusciti: riprova tra %(minutes)s minuto.", "Troppi accessi non riusciti: riprova tra %(minutes)s minuti."),
        (
            "Demasiados intentos de acceso fallidos: vuelve a intentarlo en %(minutes)s minuto.",
            "Demasiados intentos de acceso fallidos: vuelve a intentarlo en %(minutes)s minutos.",
        ),
    ),
    "Language": ("Lingua", "Idioma"),
    "Change": ("Cambia", "Cambiar"),
    "Save": ("Salva", "Guardar"),
    "Today's challenges": ("Le sfide di oggi", "Los desafíos de hoy"),
    "Next deal in": ("Prossima smazzata tra", "Próximo reparto en"),
    "Streak: %(days)s day played in a row": (
        ("Serie: %(days)s giorno giocato di fila", "Serie: %(days)s giorni giocati di fila"),
        ("Racha: %(days)s día jugado seguido", "Racha: %(days)s días jugados seguidos"),
    ),
    "best %(best)s": ("record %(best)s", "récord %(best)s"),
    "%(days)s day won in a row": (
        ("%(days)s giorno vinto di fila", "%(days)s giorni vinti di fila"),
        ("%(days)s día ganado seguido", "%(days)s días ganados seguidos"),
    ),
    "Everyone plays the same deal today. Clear the pyramid by pairing cards that make 13.": (
        "Oggi tutti giocano la stessa smazzata. Smonta la piramide accoppiando carte che fanno 13.",
        "Hoy todos juegan el mismo reparto. Desmonta la pirámide emparejando cartas que suman 13.",
    ),
    "Par %(par)s": ("Par %(par)s", "Par %(par)s"),
    "%(n)s player finished": (
        ("%(n)s giocatore ha finito", "%(n)s giocatori hanno finito"),
        ("%(n)s jugador ha terminado", "%(n)s jugadores han terminado"),
    ),
    "Played": ("Giocata", "Jugado"),
    "points": ("punti", "puntos"),
    "won": ("vinta", "ganada"),
    "gave up": ("abbandonata", "abandonada"),
    "lost": ("persa", "perdida"),
    "playing": ("in corso", "en curso"),
    "See your game": ("Rivedi la tua partita", "Ver tu partida"),
    "Practise this deal": ("Allenati su questa smazzata", "Practica este reparto"),
    "In progress": ("In corso", "En curso"),
    "Resume": ("Riprendi", "Continuar"),
    "Not played yet": ("Non ancora giocata", "Aún no jugado"),
    "Play": ("Gioca", "Jugar"),
    "Sign in to play": ("Accedi per giocare", "Entra para jugar"),
    "Leaderboard": ("Classifica", "Clasificación"),
    "Live room": ("Sala in diretta", "Sala en directo"),
    "No challenge is scheduled for today yet.": ("Per oggi non c'è ancora nessuna sfida.", "Todavía no hay ningún desafío para hoy."),
    "Period": ("Periodo", "Periodo"),
    "Today": ("Oggi", "Hoy"),
    "This week": ("Questa settimana", "Esta semana"),
    "All time": ("Sempre", "Histórico"),
    "Game": ("Gioco", "Juego"),
    "You are number %(rank)s of %(total)s.": ("Sei al posto %(rank)s su %(total)s.", "Estás en el puesto %(rank)s de %(total)s."),
    "par": ("par", "par"),
    "Today's scores: %(n)s player": (
        ("Punteggi di oggi: %(n)s giocatore", "Punteggi di oggi: %(n)s giocatori"),
        ("Puntuaciones de hoy: %(n)s jugador", "Puntuaciones de hoy: %(n)s jugadores"),
    ),
    "the dashed line marks par (%(par)s)": ("la linea tratteggiata segna il par (%(par)s)", "la línea discontinua marca el par (%(par)s)"),
    "Ranking": ("Graduatoria", "Clasificación"),
    "Player": ("Giocatore", "Jugador"),
    "Points": ("Punti", "Puntos"),
    "Moves": ("Mosse", "Movimientos"),
    "you": ("tu", "tú"),
    "No finished games yet.": ("Nessuna partita finita per ora.", "Aún no hay partidas terminadas."),
    "practice": ("allenamento", "práctica"),
    "Score": ("Punti", "Puntos"),
    "Par": ("Par", "Par"),
    "Redeals left": ("Rigiri rimasti", "Vueltas restantes"),
    "Cards left": ("Carte rimaste", "Cartas restantes"),
    "Draw": ("Pesca", "Robar"),
    "Undo": ("Annulla", "Deshacer"),
    "Hint": ("Suggerimento", "Pista"),
    "Give up": ("Abbandona", "Abandonar"),
    "How to play": ("Come si gioca", "Cómo se juega"),
    "Remove pairs of free cards that add up to 13 (10 with forty cards) by tapping one card and then the other, or by dragging one onto the other. A king leaves alone: tap it. Tap the stock to draw; when it is empty, tap it to turn the waste over while redeals are left.": (
        "Togli coppie di carte libere che sommano 13 (10 con quaranta carte) toccando una carta e poi l'altra, o trascinando una carta sull'altra. Il re se ne va da solo: toccalo. Tocca il tallone per pescare; quando è vuoto, toccalo per rigirare gli scarti finché restano rigiri.",
        "Quita parejas de cartas libres que sumen 13 (10 con cuarenta cartas) tocando una carta y luego la otra, o arrastrando una carta sobre la otra. El rey se va solo: tócalo. Toca el mazo para robar; cuando esté vacío, tócalo para dar la vuelta al descarte mientras queden vueltas.",
    ),
    "Keyboard: Tab to a card, Enter or Space to choose it, then Enter on its partner; Escape cancels; the arrow keys move between cards; D draws, R turns the waste over.": (
        "Tastiera: Tab fino a una carta, Invio o Spazio per sceglierla, poi Invio sulla compagna; Esc annulla; le frecce si spostano tra le carte; D pesca, R rigira gli scarti.",
        "Teclado: Tab hasta una carta, Intro o Espacio para elegirla, luego Intro en su pareja; Esc cancela; las flechas se mueven entre cartas; D roba, R da la vuelta al descarte.",
    ),
    "Where the game was lost": ("Dove si è persa la partita", "Dónde se perdió la partida"),
    "Back to the game": ("Torna alla partita", "Volver a la partida"),
    "Show me": ("Fammi vedere", "Muéstramelo"),
    "Result to share": ("Risultato da condividere", "Resultado para compartir"),
    "Copy result": ("Copia il risultato", "Copiar el resultado"),
    "Close": ("Chiudi", "Cerrar"),
    "days played in a row": ("giorni giocati di fila", "días jugados seguidos"),
    "best run of days played": ("serie più lunga di giorni giocati", "mejor racha de días jugados"),
    "days won in a row": ("giorni vinti di fila", "días ganados seguidos"),
    "best run of days won": ("serie più lunga di giorni vinti", "mejor racha de días ganados"),
    "Calendar": ("Calendario", "Calendario"),
    "✓ played · ★ won": ("✓ giocato · ★ vinto", "✓ jugado · ★ ganado"),
    "played": ("giocato", "jugado"),
    "History": ("Storico", "Historial"),
    "Day": ("Giorno", "Día"),
    "Result": ("Esito", "Resultado"),
    "not cleared": ("non smontata", "no completada"),
    "see": ("vedi", "ver"),
    "No finished daily game yet.": ("Ancora nessuna sfida del giorno finita.", "Aún no has terminado ningún desafío diario."),
    "Change password": ("Cambia password", "Cambiar la contraseña"),
    "Race": ("Gara", "Carrera"),
    "Share this link with your friends:": ("Condividi questo link con i tuoi amici:", "Comparte este enlace con tus amigos:"),
    "Link to this race": ("Link a questa gara", "Enlace a esta carrera"),
    "Copy link": ("Copia link", "Copiar enlace"),
    "Join the race": ("Partecipa alla gara", "Unirse a la carrera"),
    "Leave the room": ("Lascia la stanza", "Salir de la sala"),
    "Start the countdown": ("Avvia il conto alla rovescia", "Iniciar la cuenta atrás"),
    "Players": ("Giocatori", "Jugadores"),
    "Results": ("Risultati", "Resultados"),
    "Your game": ("La tua partita", "Tu partida"),
    "Everyone in the room plays the same fresh deal at the same moment. The first to clear the pyramid wins; otherwise the best score when all have finished. Races do not count on the daily leaderboards.": (
        "Tutti nella sala giocano la stessa smazzata nuova nello stesso momento. Vince chi smonta per primo la piramide; altrimenti il punteggio migliore quando tutti hanno finito. Le gare non contano nelle classifiche del giorno.",
        "Todos en la sala juegan el mismo reparto nuevo al mismo tiempo. Gana quien desmonte primero la pirámide; si no, la mejor puntuación cuando todos hayan terminado. Las carreras no cuentan en las clasificaciones diarias.",
    ),
    "Create a race room": ("Crea una sala di gara", "Crear una sala de carrera"),
    "That is not possible": ("Non si può", "No es posible"),
    "Back to today's challenges": ("Torna alle sfide di oggi", "Volver a los desafíos de hoy"),
    "live": ("in diretta", "en directo"),
    "Playing now": ("In gioco ora", "Jugando ahora"),
    "Finished": ("Finite", "Terminadas"),
    "Wins": ("Vittorie", "Victorias"),
    "Nobody is playing right now.": ("In questo momento non gioca nessuno.", "Ahora mismo no juega nadie."),
    "Top of the leaderboard": ("In testa alla classifica", "Cabeza de la clasificación"),
    "No account?": ("Non hai un account?", "¿No tienes cuenta?"),
    "Watching": ("Stai guardando", "Mirando a"),
    "%(name)s is playing": ("%(name)s sta giocando", "%(name)s está jugando"),
    "%(name)s's game": ("La partita di %(name)s", "La partida de %(name)s"),
    "You have not finished today's game of this challenge yet: to keep the deal a surprise you see only the progress, not the cards. Finish your own game to watch move by move.": (
        "Non hai ancora finito la tua partita di oggi a questa sfida: per non rovinarti la sorpresa vedi solo l'andamento, non le carte. Finisci la tua partita per guardare mossa per mossa.",
        "Aún no has terminado tu partida de hoy en este desafío: para no estropearte la sorpresa solo ves el progreso, no las cartas. Termina tu partida para verla jugada a jugada.",
    ),
    "Username": ("Nome utente", "Nombre de usuario"),
    "Display name": ("Nome in classifica", "Nombre en la clasificación"),
    "Shown on leaderboards; defaults to the username.": ("Compare nelle classifiche; se vuoto, il nome utente.", "Aparece en las clasificaciones; si está vacío, el nombre de usuario."),
    "E-mail (optional)": ("E-mail (facoltativa)", "Correo (opcional)"),
    "Password": ("Password", "Contraseña"),
    # ------------------------------------------------------------- JavaScript
    "face-down card": ("carta coperta", "carta boca abajo"),
    "face-down card, free": ("carta coperta, libera", "carta boca abajo, libre"),
    "face-down card, covered": ("carta coperta, bloccata", "carta boca abajo, bloqueada"),
    "free": ("libera", "libre"),
    "covered": ("bloccata", "bloqueada"),
    "%(card)s, %(status)s": ("%(card)s, %(status)s", "%(card)s, %(status)s"),
    "Turn the waste over (−10 points)": ("Rigira gli scarti (−10 punti)", "Da la vuelta al descarte (−10 puntos)"),
    "Turn the waste over (%(n)s redeals left)": ("Rigira gli scarti (rigiri rimasti: %(n)s)", "Da la vuelta al descarte (vueltas restantes: %(n)s)"),
    "Draw a card (%(n)s in the stock)": ("Pesca una carta (%(n)s nel tallone)", "Roba una carta (%(n)s en el mazo)"),
    "The stock is empty": ("Il tallone è vuoto", "El mazo está vacío"),
    "Waste: %(n)s cards": ("Scarti: %(n)s carte", "Descarte: %(n)s cartas"),
    "ace": ("asso", "as"),
    "two": ("due", "dos"),
    "three": ("tre", "tres"),
    "four": ("quattro", "cuatro"),
    "five": ("cinque", "cinco"),
    "six": ("sei", "seis"),
    "seven": ("sette", "siete"),
    "eight": ("otto", "ocho"),
    "nine": ("nove", "nueve"),
    "ten": ("dieci", "diez"),
    "jack": ("fante", "jota"),
    "queen": ("donna", "reina"),
    "king": ("re", "rey"),
    "clubs": ("fiori", "tréboles"),
    "diamonds": ("quadri", "diamantes"),
    "hearts": ("cuori", "corazones"),
    "spades": ("picche", "picas"),
    "%(rank)s of %(suit)s": ("%(rank)s di %(suit)s", "%(rank)s de %(suit)s"),
    "Card drawn": ("Carta pescata", "Carta robada"),
    "Waste turned over": ("Scarti rigirati", "Descarte vuelto"),
    "%(card)s removed": ("%(card)s tolto", "%(card)s retirado"),
    "%(a)s and %(b)s removed": ("%(a)s e %(b)s tolti", "%(a)s y %(b)s retirados"),
    "Not allowed: %(reason)s": ("Mossa non valida: %(reason)s", "Jugada no válida: %(reason)s"),
    "the server refused the move": ("il server ha rifiutato la mossa", "el servidor rechazó la jugada"),
    "You may draw only when nothing can be removed": (
        "Puoi pescare solo quando non si può togliere nulla",
        "Solo puedes robar cuando no se puede quitar nada",
    ),
    "you may draw only when nothing can be removed": (
        "puoi pescare solo quando non si può togliere nulla",
        "solo puedes robar cuando no se puede quitar nada",
    ),
    "you may draw only when nothing can be removed: %(a)s + %(b)s make %(sum)s": (
        "puoi pescare solo quando non si può togliere nulla: %(a)s + %(b)s fanno %(sum)s",
        "solo puedes robar cuando no se puede quitar nada: %(a)s + %(b)s suman %(sum)s",
    ),
    "you may draw only when nothing can be removed: %(card)s leaves alone": (
        "puoi pescare solo quando non si può togliere nulla: %(card)s se ne va da solo",
        "solo puedes robar cuando no se puede quitar nada: %(card)s se va solo",
    ),
    "The move was not made: the server is busy, try again in a few seconds.": (
        "La mossa non è stata fatta: il server è occupato, riprova tra qualche secondo.",
        "La jugada no se hizo: el servidor está ocupado, inténtalo de nuevo en unos segundos.",
    ),
    "Selection cleared": ("Selezione annullata", "Selección anulada"),
    "%(card)s is not free": ("%(card)s non è libera", "%(card)s no está libre"),
    "%(card)s selected: now choose its partner": ("%(card)s scelta: ora scegli la compagna", "%(card)s elegida: ahora elige su pareja"),
    "Move taken back": ("Mossa annullata", "Jugada deshecha"),
    "Draw a card": ("Pesca una carta", "Roba una carta"),
    "Turn the waste over": ("Rigira gli scarti", "Da la vuelta al descarte"),
    "Hint: %(move)s": ("Suggerimento: %(move)s", "Pista: %(move)s"),
    "You cleared the pyramid!": ("Hai smontato la piramide!", "¡Has desmontado la pirámide!"),
    "You gave up": ("Hai abbandonato", "Has abandonado"),
    "No move is left": ("Non resta nessuna mossa", "No queda ninguna jugada"),
    "%(n)s above par": ("%(n)s sopra il par", "%(n)s por encima del par"),
    "%(n)s below par": ("%(n)s sotto il par", "%(n)s por debajo del par"),
    "Copied: paste it anywhere": ("Copiato: incollalo dove vuoi", "Copiado: pégalo donde quieras"),
    "Rank %(rank)s of %(total)s": ("Posto %(rank)s su %(total)s", "Puesto %(rank)s de %(total)s"),
    "This deal could not be won from the start.": ("Questa smazzata non si poteva vincere fin dall'inizio.", "Este reparto no se podía ganar desde el principio."),
    "The solver could not find where the game was lost in time.": ("Il risolutore non ha trovato in tempo dove si è persa la partita.", "El resolvedor no encontró a tiempo dónde se perdió la partida."),
    "a draw": ("una pescata", "un robo"),
    "Return the first three cards to the stock": ("Rimetti nel tallone le prime tre carte", "Devuelve al mazo las tres primeras cartas"),
    "How many stock cards to put it under": ("Sotto quante carte del tallone rimetterla", "Bajo cuántas cartas del mazo devolverla"),
    "Put the drawn card back under": ("Rimetti la carta pescata sotto", "Devuelve la carta robada bajo"),
    "the game had moved on elsewhere: here is where it stands now": (
        "la partita era andata avanti altrove: ecco a che punto è",
        "la partida había avanzado en otro sitio: así está ahora",
    ),
    "Replay move by move": ("Rivedi mossa per mossa", "Repetir jugada a jugada"),
    "Move %(n)s of %(total)s: %(move)s": ("Mossa %(n)s di %(total)s: %(move)s", "Jugada %(n)s de %(total)s: %(move)s"),
    "a redeal": ("un rigiro", "una vuelta"),
    "The deal could still be won where you stopped.": ("La smazzata si poteva ancora vincere dove ti sei fermato.", "El reparto aún se podía ganar donde lo dejaste."),
    "The deal could still be won until your move %(n)s. The winning line opens when the day is over.": (
        "La smazzata si poteva ancora vincere fino alla tua mossa %(n)s. La linea vincente si vede quando la giornata è finita.",
        "El reparto aún se podía ganar hasta tu jugada %(n)s. La línea ganadora se muestra cuando termine el día.",
    ),
    "Provisional: your account was made on the day of this challenge, so this score does not rank. Your scores rank from your account's first full day.": (
        "Provvisorio: il tuo account è nato nel giorno di questa sfida, quindi questo punteggio non entra in classifica. I tuoi punteggi contano dal primo giorno intero del tuo account.",
        "Provisional: tu cuenta se creó el día de este desafío, así que esta puntuación no entra en la clasificación. Tus puntuaciones cuentan desde el primer día completo de tu cuenta.",
    ),
    "In review: our fair-play checks asked staff to look at this game. It ranks as soon as they clear it.": (
        "In revisione: i nostri controlli sul gioco leale hanno chiesto allo staff di guardare questa partita. Entra in classifica appena la approvano.",
        "En revisión: nuestros controles de juego limpio pidieron al equipo que revise esta partida. Entra en la clasificación en cuanto la aprueben.",
    ),
    "Excluded by staff after a fair-play review: kept in your history, not ranked.": (
        "Esclusa dallo staff dopo una revisione sul gioco leale: resta nella tua cronologia, fuori classifica.",
        "Excluida por el equipo tras una revisión de juego limpio: queda en tu historial, fuera de la clasificación.",
    ),
    "Excluded: staff took every score of this account off the boards after a fair-play review.": (
        "Esclusa: dopo una revisione sul gioco leale lo staff ha tolto dalle classifiche ogni punteggio di questo account.",
        "Excluida: tras una revisión de juego limpio, el equipo retiró de las clasificaciones todas las puntuaciones de esta cuenta.",
    ),
    "Piramide will be back in a moment": ("Piramide torna tra un momento", "Piramide vuelve en un momento"),
    "The database is not answering. Your games and scores are safe; this page tries again by itself.": (
        "Il database non risponde. Le tue partite e i tuoi punteggi sono al sicuro; questa pagina riprova da sola.",
        "La base de datos no responde. Tus partidas y puntuaciones están a salvo; esta página vuelve a intentarlo sola.",
    ),
    "This score does not rank.": ("Questo punteggio non entra in classifica.", "Esta puntuación no entra en la clasificación."),
    "Only you see this: your scores below are not on this board.": (
        "Lo vedi solo tu: questi tuoi punteggi non sono in questa classifica.",
        "Solo tú lo ves: estas puntuaciones tuyas no están en esta clasificación.",
    ),
    "Practice, hints and the solver's winning line open when the day is over.": (
        "Allenamento, suggerimenti e la linea vincente del risolutore si aprono quando la giornata è finita.",
        "La práctica, las pistas y la línea ganadora del solucionador se abren cuando termine el día.",
    ),
    "The deal could still be won until your move %(n)s.": ("La smazzata si poteva ancora vincere fino alla tua mossa %(n)s.", "El reparto aún se podía ganar hasta tu jugada %(n)s."),
    "Move %(n)s of %(total)s": ("Mossa %(n)s di %(total)s", "Jugada %(n)s de %(total)s"),
    "Here you played %(fatal)s; the deal was lost from then on. A winning move was %(better)s.": (
        "Qui hai giocato %(fatal)s; da lì la smazzata era persa. Una mossa vincente era %(better)s.",
        "Aquí jugaste %(fatal)s; desde entonces el reparto estaba perdido. Una jugada ganadora era %(better)s.",
    ),
    "No winning move was found from here": ("Da qui non si trova una mossa vincente", "Desde aquí no se encuentra una jugada ganadora"),
    "Give up this game? Your score so far counts.": ("Abbandonare la partita? Conta il punteggio fatto finora.", "¿Abandonar la partida? Cuenta la puntuación hasta ahora."),
    "There is no undo in a race": ("In gara non si annulla", "En una carrera no se deshace"),
    "The race is over: you finished in place %(place)s.": ("La gara è finita: sei arrivato al posto %(place)s.", "La carrera ha terminado: quedaste en el puesto %(place)s."),
    "The race is over.": ("La gara è finita.", "La carrera ha terminado."),
    "Go!": ("Via!", "¡Ya!"),
    "Your game is over: waiting for the others…": ("La tua partita è finita: si aspettano gli altri…", "Tu partida ha terminado: esperando a los demás…"),
    "Race on!": ("Gara in corso!", "¡Carrera en marcha!"),
    "Waiting for the host to start…": ("Si aspetta che chi ha creato la gara la avvii…", "Esperando a que el anfitrión empiece…"),
    "Join to race.": ("Partecipa per gareggiare.", "Únete para competir."),
    "Connection lost: reconnecting…": ("Connessione persa: riconnessione…", "Conexión perdida: reconectando…"),
    "Get ready…": ("Preparati…", "Prepárate…"),
    "Link copied": ("Link copiato", "Enlace copiado"),
    "Give up the race?": ("Abbandonare la gara?", "¿Abandonar la carrera?"),
    "%(name)s: %(points)s points in %(moves)s moves": ("%(name)s: %(points)s punti in %(moves)s mosse", "%(name)s: %(points)s puntos en %(moves)s movimientos"),
    "Piramide #%(day)s · %(preset)s": ("Piramide #%(day)s · %(preset)s", "Piramide #%(day)s · %(preset)s"),
    "%(score)s points (par %(par)s)": ("%(score)s punti (par %(par)s)", "%(score)s puntos (par %(par)s)"),
    "%(score)s points": ("%(score)s punti", "%(score)s puntos"),
    "%(a)s + %(b)s makes %(sum)s, not %(target)s": ("%(a)s + %(b)s fa %(sum)s, non %(target)s", "%(a)s + %(b)s suman %(sum)s, no %(target)s"),
    "%(card)s is covered by %(n)s card": (
        ("%(card)s è coperta da %(n)s carta", "%(card)s è coperta da %(n)s carte"),
        ("%(card)s está cubierta por %(n)s carta", "%(card)s está cubierta por %(n)s cartas"),
    ),
    "the face-down card": ("la carta coperta", "la carta boca abajo"),
    "level with par": ("pari al par", "igual al par"),
    "See the result": ("Vedi il risultato", "Ver el resultado"),
    "Too many reset requests: try again in %(minutes)s minute.": (
        ("Troppe richieste di reimpostazione: riprova tra %(minutes)s minuto.", "Troppe richieste di reimpostazione: riprova tra %(minutes)s minuti."),
        ("Demasiadas solicitudes de restablecimiento: vuelve a intentarlo en %(minutes)s minuto.", "Demasiadas solicitudes de restablecimiento: vuelve a intentarlo en %(minutes)s minutos."),
    ),
    "Sign up to do that: your game of today comes with you.": (
        "Registrati per farlo: la tua partita di oggi viene con te.",
        "Regístrate para hacerlo: tu partida de hoy viene contigo.",
    ),
    "Your game as a guest is yours now.": (
        ("La tua partita da ospite ora è tua.", "Le tue %(n)s partite da ospite ora sono tue."),
        ("Tu partida como invitado ya es tuya.", "Tus %(n)s partidas como invitado ya son tuyas."),
    ),
    "You had already played %(variant)s today with this account: that game counts, not the one you played as a guest.": (
        "Con questo account avevi già giocato %(variant)s oggi: conta quella partita, non quella da ospite.",
        "Con esta cuenta ya habías jugado %(variant)s hoy: cuenta esa partida, no la que jugaste como invitado.",
    ),
    "Your games of today as a guest come with you: they become your account's, under the name you choose.": (
        "Le tue partite di oggi da ospite vengono con te: diventano del tuo account, con il nome che scegli.",
        "Tus partidas de hoy como invitado vienen contigo: pasan a tu cuenta, con el nombre que elijas.",
    ),
    "Your games of today as a guest come with you, unless your account has played that challenge already.": (
        "Le tue partite di oggi da ospite vengono con te, se il tuo account non ha già giocato quella sfida.",
        "Tus partidas de hoy como invitado vienen contigo, salvo que tu cuenta ya haya jugado ese desafío.",
    ),
    "Guest": ("Ospite", "Invitado"),
    "You are playing as a guest: sign up to keep your games and rank on the boards.": (
        "Stai giocando come ospite: registrati per tenere le tue partite ed entrare nelle classifiche.",
        "Estás jugando como invitado: regístrate para conservar tus partidas y entrar en las clasificaciones.",
    ),
    "Tap Play: no account needed. Sign up when you want to keep your score.": (
        "Tocca Gioca: non serve un account. Registrati quando vuoi tenere il tuo punteggio.",
        "Toca Jugar: no hace falta cuenta. Regístrate cuando quieras conservar tu puntuación.",
    ),
    "You played as a guest: sign up to keep this game.": (
        "Hai giocato come ospite: registrati per tenere questa partita.",
        "Has jugado como invitado: regístrate para conservar esta partida.",
    ),
    "The board around you": ("La classifica intorno a te", "La clasificación a tu alrededor"),
    "What next": ("E ora", "Y ahora"),
    "Watch the day unfold in the live room": ("Guarda la giornata nella sala dal vivo", "Sigue el día en la sala en directo"),
    "Keep my game": ("Tieni la mia partita", "Conservar mi partida"),
    "Played as a guest: this score does not rank. Sign up to keep your game; your scores rank from your account's first full day.": (
        "Giocata da ospite: questo punteggio non entra in classifica. Registrati per tenere la partita; i tuoi punteggi contano dal primo giorno intero del tuo account.",
        "Jugada como invitado: esta puntuación no entra en la clasificación. Regístrate para conservar la partida; tus puntuaciones cuentan desde el primer día completo de tu cuenta.",
    ),
    "Too many guest games from your address: sign up or sign in to play, or try again in %(minutes)s minute.": (
        ("Troppe partite da ospite dal tuo indirizzo: registrati o accedi per giocare, oppure riprova tra %(minutes)s minuto.", "Troppe partite da ospite dal tuo indirizzo: registrati o accedi per giocare, oppure riprova tra %(minutes)s minuti."),
        ("Demasiadas partidas de invitado desde tu dirección: regístrate o inicia sesión para jugar, o vuelve a intentarlo en %(minutes)s minuto.", "Demasiadas partidas de invitado desde tu dirección: regístrate o inicia sesión para jugar, o vuelve a intentarlo en %(minutes)s minutos."),
    ),
    "You would be %(rank)s of %(total)s.": ("Saresti %(rank)s° su %(total)s.", "Serías el %(rank)s.º de %(total)s."),
    "Your e-mail address is saved.": ("Il tuo indirizzo e-mail è salvato.", "Tu dirección de correo está guardada."),
    "E-mail for account recovery": ("E-mail per recuperare l'account", "Correo para recuperar la cuenta"),
    "E-mail": ("E-mail", "Correo electrónico"),
    "A password reset link is sent here. Leave it empty and a forgotten password cannot be recovered.": (
        "Qui arriva il link per reimpostare la password. Se lo lasci vuoto, una password dimenticata non si può recuperare.",
        "Aquí llega el enlace para restablecer la contraseña. Si lo dejas vacío, una contraseña olvidada no se puede recuperar.",
    ),
    "Forgotten password": ("Password dimenticata", "Contraseña olvidada"),
    "Give the e-mail address of your account: a link to choose a new password is sent there.": (
        "Scrivi l'indirizzo e-mail del tuo account: lì arriva un link per scegliere una nuova password.",
        "Escribe la dirección de correo de tu cuenta: allí llega un enlace para elegir una contraseña nueva.",
    ),
    "Send the link": ("Invia il link", "Enviar el enlace"),
    "No e-mail address on your account? Then the password cannot be recovered: make a new account, and add an address on your profile.": (
        "Nessun indirizzo e-mail sul tuo account? Allora la password non si può recuperare: crea un nuovo account e aggiungi un indirizzo nel profilo.",
        "¿Tu cuenta no tiene dirección de correo? Entonces la contraseña no se puede recuperar: crea una cuenta nueva y añade una dirección en tu perfil.",
    ),
    "Check your e-mail": ("Controlla la tua e-mail", "Revisa tu correo"),
    "If an account has that address, a link to choose a new password is on its way. It works once, for three days. Nothing there? Look in the spam folder.": (
        "Se un account ha quell'indirizzo, un link per scegliere una nuova password è in arrivo. Funziona una volta, per tre giorni. Non arriva niente? Guarda nella posta indesiderata.",
        "Si una cuenta tiene esa dirección, va de camino un enlace para elegir una contraseña nueva. Funciona una vez, durante tres días. ¿No llega nada? Mira en la carpeta de spam.",
    ),
    "New password": ("Nuova password", "Contraseña nueva"),
    "This link has been used already or is too old.": ("Questo link è già stato usato o è troppo vecchio.", "Este enlace ya se usó o es demasiado antiguo."),
    "Ask for a new one": ("Chiedine uno nuovo", "Pide uno nuevo"),
    "Your password is changed": ("La tua password è cambiata", "Tu contraseña ha cambiado"),
    "Sign in with the new one. Anywhere you were still signed in with the old one, you are signed out.": (
        "Accedi con quella nuova. Dove eri ancora dentro con la vecchia, sei uscito.",
        "Inicia sesión con la nueva. Donde seguías dentro con la antigua, se ha cerrado la sesión.",
    ),
    "Piramide: choose a new password": ("Piramide: scegli una nuova password", "Piramide: elige una contraseña nueva"),
    "Hello %(name)s,\n\nsomeone (you, we hope) asked to choose a new password for your Piramide account. Open this link to do it:": (
        "Ciao %(name)s,\n\nqualcuno (tu, speriamo) ha chiesto di scegliere una nuova password per il tuo account Piramide. Apri questo link per farlo:",
        "Hola %(name)s:\n\nalguien (tú, esperamos) ha pedido elegir una contraseña nueva para tu cuenta de Piramide. Abre este enlace para hacerlo:",
    ),
    "Your username is %(username)s. The link works once, for three days. If you did not ask, do nothing: your password stays as it is.": (
        "Il tuo nome utente è %(username)s. Il link funziona una volta, per tre giorni. Se non l'hai chiesto tu, non fare niente: la tua password resta com'è.",
        "Tu nombre de usuario es %(username)s. El enlace funciona una vez, durante tres días. Si no lo pediste tú, no hagas nada: tu contraseña sigue igual.",
    ),
    "Forgotten your password?": ("Password dimenticata?", "¿Olvidaste tu contraseña?"),
    "Account": ("Account", "Cuenta"),
    "none: a forgotten password cannot be recovered": ("nessuno: una password dimenticata non si può recuperare", "ninguno: una contraseña olvidada no se puede recuperar"),
    "change": ("cambia", "cambiar"),
    "Forty cards: the jack counts 8, the queen 9, the king 10. Pairs make 10; a king leaves alone.": (
        "Quaranta carte: il fante vale 8, la donna 9, il re 10. Le coppie fanno 10; il re se ne va da solo.",
        "Cuarenta cartas: la jota vale 8, la reina 9, el rey 10. Las parejas suman 10; el rey se va solo.",
    ),
    "You may draw only when nothing can be removed: until then the stock is dimmed, and a tap on it says why.": (
        "Si pesca solo quando non si può togliere niente: fino ad allora il tallone è attenuato, e toccandolo si vede perché.",
        "Solo se roba cuando no se puede quitar nada: hasta entonces el mazo está atenuado, y al tocarlo se ve por qué.",
    ),
    "stopped": ("fermata", "detenida"),
    "Rematch": ("Rivincita", "Revancha"),
    "Join the rematch": ("Unisciti alla rivincita", "Únete a la revancha"),
    "%(name)s asks for a rematch: join it.": ("%(name)s chiede la rivincita: unisciti.", "%(name)s pide la revancha: únete."),
    "ready": ("pronto", "listo"),
    "Start the race when everyone is here.": ("Avvia la gara quando ci sono tutti.", "Empieza la carrera cuando estén todos."),
    "only the top %(n)s card of the waste is in play": (
        ("è in gioco solo la prima %(n)s carta degli scarti", "sono in gioco solo le prime %(n)s carte degli scarti"),
        ("solo está en juego la primera %(n)s carta del descarte", "solo están en juego las primeras %(n)s cartas del descarte"),
    ),
    "every pair needs a pyramid card": ("ogni coppia deve avere una carta della piramide", "cada pareja necesita una carta de la pirámide"),
    "a card under the waste top pairs only with another waste card": (
        "una carta sotto la cima degli scarti fa coppia solo con un'altra carta degli scarti",
        "una carta bajo la cima del descarte solo hace pareja con otra carta del descarte",
    ),
    "that card is already gone": ("quella carta non c'è più", "esa carta ya no está"),
    "the stock is empty: turn the waste over": ("il tallone è vuoto: rigira gli scarti", "el mazo está vacío: da la vuelta al descarte"),
    "the stock is empty and no redeal is left": ("il tallone è vuoto e non restano rigiri", "el mazo está vacío y no quedan vueltas"),
    "no redeal is left": ("non restano rigiri", "no quedan vueltas"),
    "the stock is not empty yet: draw first": ("il tallone non è ancora vuoto: prima pesca", "el mazo aún no está vacío: primero roba"),
    "only the top card of the waste is in play": ("è in gioco solo la carta in cima agli scarti", "solo está en juego la carta de arriba del descarte"),
    "%(card)s counts %(n)s: only a king leaves alone": ("%(card)s vale %(n)s: solo il re se ne va da solo", "%(card)s vale %(n)s: solo el rey se va solo"),
    "the game is over: the pyramid is cleared": ("la partita è finita: la piramide è sgombra", "la partida ha terminado: la pirámide está despejada"),
    "the game is over: no move is left": ("la partita è finita: non resta nessuna mossa", "la partida ha terminado: no queda ninguna jugada"),
    "the game is over: no free pyramid card can ever be removed": (
        "la partita è finita: nessuna carta libera della piramide potrà più essere tolta",
        "la partida ha terminado: ya no se podrá retirar ninguna carta libre de la pirámide",
    ),
    "the game is over: no more moves": ("la partita è finita: niente più mosse", "la partida ha terminado: no hay más jugadas"),
    "the waste is empty: there is nothing to turn over": (
        "gli scarti sono vuoti: non c'è niente da rigirare",
        "el descarte está vacío: no hay nada a lo que dar la vuelta",
    ),
    "the waste is empty": ("gli scarti sono vuoti", "el descarte está vacío"),
    "the waste holds only %(n)s card": (
        ("negli scarti c'è solo %(n)s carta", "negli scarti ci sono solo %(n)s carte"),
        ("el descarte solo tiene %(n)s carta", "el descarte solo tiene %(n)s cartas"),
    ),
    "the stock is empty": ("il tallone è vuoto", "el mazo está vacío"),
    "draw a card first": ("prima pesca una carta", "primero roba una carta"),
    "a drawn card goes to the waste: play it from there": (
        "la carta pescata va negli scarti: giocala da lì",
        "la carta robada va al descarte: júgala desde allí",
    ),
    "there is no such place: the pyramid has %(n)s rows": (
        "quel posto non esiste: la piramide ha %(n)s file",
        "ese lugar no existe: la pirámide tiene %(n)s filas",
    ),
    "a move removes one king or two different cards": (
        "una mossa toglie un re o due carte diverse",
        "una jugada retira un rey o dos cartas distintas",
    ),
    "this game has no rule for putting a card back": (
        "questo gioco non ha la regola per rimettere una carta nel mazzo",
        "este juego no tiene la regla de devolver una carta al mazo",
    ),
    "only the card just drawn can go back into the stock": (
        "solo la carta appena pescata può tornare nel tallone",
        "solo la carta recién robada puede volver al mazo",
    ),
    "%(card)s may go back only while the other three of its rank lie free in the pyramid": (
        "%(card)s può tornare nel mazzo solo se le altre tre dello stesso valore sono libere nella piramide",
        "%(card)s solo puede volver al mazo si las otras tres de su valor están libres en la pirámide",
    ),
    "the stock is empty: there is nothing to put the card under": (
        "il tallone è vuoto: non c'è niente sotto cui mettere la carta",
        "el mazo está vacío: no hay nada debajo de lo que poner la carta",
    ),
    "the stock has %(n)s card: put the card under it": (
        ("il tallone ha %(n)s carta: metti la carta sotto di essa", "il tallone ha %(n)s carte: metti la carta sotto 1 fino a %(n)s di esse"),
        ("el mazo tiene %(n)s carta: pon la carta debajo de ella", "el mazo tiene %(n)s cartas: pon la carta debajo de 1 a %(n)s de ellas"),
    ),
    "this game has no rule for returning the first three cards": (
        "questo gioco non ha la regola per rimettere nel mazzo le prime tre carte",
        "este juego no tiene la regla de devolver al mazo las tres primeras cartas",
    ),
    "the first three cards have already gone back once": (
        "le prime tre carte sono già tornate nel mazzo una volta",
        "las tres primeras cartas ya volvieron al mazo una vez",
    ),
    "the three cards go back only right after the first three draws, before any pair is made": (
        "le tre carte tornano nel mazzo solo subito dopo le prime tre pescate, prima di qualsiasi coppia",
        "las tres cartas vuelven al mazo solo justo después de los tres primeros robos, antes de formar ninguna pareja",
    ),
    # the pyramid can no longer be cleared (docs/rules.md, "When a game ends")
    "The pyramid can no longer be cleared. End the game here and keep your points, or play on for more.": (
        "La piramide non si può più sgombrare. Chiudi qui la partita tenendo i punti, oppure continua per farne altri.",
        "La pirámide ya no se puede despejar. Termina aquí la partida y conserva tus puntos, o sigue jugando para sumar más.",
    ),
    "End the game here": ("Chiudi qui la partita", "Terminar aquí la partida"),
    "End the game here? Your score so far counts.": (
        "Chiudere qui la partita? Il punteggio fatto finora conta.",
        "¿Terminar aquí la partida? La puntuación conseguida hasta ahora cuenta.",
    ),
    "You ended the game: the pyramid could no longer be cleared": (
        "Hai chiuso la partita: la piramide non si poteva più sgombrare",
        "Has terminado la partida: la pirámide ya no se podía despejar",
    ),
    # following
    "Everyone": ("Tutti", "Todos"),
    "Following": ("Seguiti", "Seguidos"),
    "Whose ranks": ("Classifica di chi", "Clasificación de quién"),
    "Follow": ("Segui", "Seguir"),
    "Follow %(name)s": ("Segui %(name)s", "Seguir a %(name)s"),
    "followed": ("seguito", "seguido"),
    "Follow %(name)s to compare your results with theirs on the “Following” view of every board.": (
        "Segui %(name)s per confrontare i tuoi risultati con i suoi nella vista “Seguiti” di ogni classifica.",
        "Sigue a %(name)s para comparar tus resultados con los suyos en la vista “Seguidos” de cada clasificación.",
    ),
    "Follow a player by display name": ("Segui un giocatore per nome", "Sigue a un jugador por su nombre"),
    "New link (the old one stops working)": ("Nuovo link (quello vecchio smette di funzionare)", "Nuevo enlace (el anterior deja de funcionar)"),
    "No one you follow has a score on this board yet.": (
        "Nessuno di quelli che segui ha ancora un punteggio in questa classifica.",
        "Nadie de los que sigues tiene todavía una puntuación en esta clasificación.",
    ),
    "No player is called %(name)s.": ("Nessun giocatore si chiama %(name)s.", "Ningún jugador se llama %(name)s."),
    "Ranking among the players you follow": ("Classifica tra i giocatori che segui", "Clasificación entre los jugadores que sigues"),
    "See the boards of the players you follow": ("Vedi le classifiche dei giocatori che segui", "Ver las clasificaciones de los jugadores que sigues"),
    "Sign in to follow": ("Accedi per seguire", "Entra para seguir"),
    "Sign in to see the boards of the players you follow.": (
        "Accedi per vedere le classifiche dei giocatori che segui.",
        "Entra para ver las clasificaciones de los jugadores que sigues.",
    ),
    "Stop following": ("Smetti di seguire", "Dejar de seguir"),
    "Stop following %(name)s": ("Smetti di seguire %(name)s", "Dejar de seguir a %(name)s"),
    "This follow link does not lead to any player any more.": (
        "Questo link non porta più a nessun giocatore.",
        "Este enlace ya no lleva a ningún jugador.",
    ),
    "This is your own share link: send it to the players you want to compare with.": (
        "Questo è il tuo link da condividere: mandalo ai giocatori con cui vuoi confrontarti.",
        "Este es tu enlace para compartir: envíalo a los jugadores con quienes quieras compararte.",
    ),
    "Write the display name of the player to follow.": (
        "Scrivi il nome del giocatore da seguire.",
        "Escribe el nombre del jugador a seguir.",
    ),
    "You already follow %(n)s player, the most one account can: stop following someone first.": (
        (
            "Segui già %(n)s giocatore, il massimo per un account: prima smetti di seguire qualcuno.",
            "Segui già %(n)s giocatori, il massimo per un account: prima smetti di seguire qualcuno.",
        ),
        (
            "Ya sigues a %(n)s jugador, el máximo para una cuenta: primero deja de seguir a alguien.",
            "Ya sigues a %(n)s jugadores, el máximo para una cuenta: primero deja de seguir a alguien.",
        ),
    ),
    "You already follow %(name)s.": ("Segui già %(name)s.", "Ya sigues a %(name)s."),
    "You cannot follow yourself: your own row is always on your boards.": (
        "Non puoi seguire te stesso: la tua riga è sempre nelle tue classifiche.",
        "No puedes seguirte a ti mismo: tu fila siempre está en tus clasificaciones.",
    ),
    "You follow %(n)s player (at most %(limit)s).": (
        ("Segui %(n)s giocatore (al massimo %(limit)s).", "Segui %(n)s giocatori (al massimo %(limit)s)."),
        ("Sigues a %(n)s jugador (como máximo %(limit)s).", "Sigues a %(n)s jugadores (como máximo %(limit)s)."),
    ),
    "You follow no one yet.": ("Non segui ancora nessuno.", "Todavía no sigues a nadie."),
    "You follow no one yet. Follow players from the Everyone view, or send them the share link on your profile.": (
        "Non segui ancora nessuno. Segui dei giocatori dalla vista Tutti, o manda loro il link del tuo profilo.",
        "Todavía no sigues a nadie. Sigue a jugadores desde la vista Todos, o envíales el enlace de tu perfil.",
    ),
    "You no longer follow this player.": ("Non segui più questo giocatore.", "Ya no sigues a este jugador."),
    "You now follow %(name)s.": ("Ora segui %(name)s.", "Ahora sigues a %(name)s."),
    "Your profile": ("Il tuo profilo", "Tu perfil"),
    "Your share link": ("Il tuo link da condividere", "Tu enlace para compartir"),
    "Your share link is new: the old one no longer works.": (
        "Il tuo link da condividere è nuovo: quello vecchio non funziona più.",
        "Tu enlace para compartir es nuevo: el anterior ya no funciona.",
    ),
    "Your share link: whoever opens it can follow you.": (
        "Il tuo link da condividere: chi lo apre può seguirti.",
        "Tu enlace para compartir: quien lo abra puede seguirte.",
    ),
    "Score %(score)s · Moves %(moves)s · Cards left %(left)s · %(outcome)s": (
        "Punti %(score)s · Mosse %(moves)s · Carte rimaste %(left)s · %(outcome)s",
        "Puntos %(score)s · Movimientos %(moves)s · Cartas restantes %(left)s · %(outcome)s",
    ),
    "A display name cannot contain invisible, control or text-direction characters (this one has %(code)s %(name)s).": (
        "Un nome visualizzato non può contenere caratteri invisibili, di controllo o di direzione del testo (questo contiene %(code)s %(name)s).",
        "Un nombre visible no puede contener caracteres invisibles, de control o de dirección del texto (este contiene %(code)s %(name)s).",
    ),
    "A display name has at most %(max)s characters.": (
        "Un nome visualizzato ha al massimo %(max)s caratteri.",
        "Un nombre visible tiene como máximo %(max)s caracteres.",
    ),
    "A display name needs at least one letter or digit.": (
        "Un nome visualizzato deve avere almeno una lettera o una cifra.",
        "Un nombre visible necesita al menos una letra o una cifra.",
    ),
    "This display name looks the same as “%(name)s”, which another player has.": (
        "Questo nome visualizzato sembra uguale a “%(name)s”, che è di un altro giocatore.",
        "Este nombre visible parece igual a “%(name)s”, que ya tiene otro jugador.",
    ),
    # e-mail verification and deleting one's account
    "Provisional: your e-mail address is not verified, so this score does not rank. Verify it from your profile: your scores of days not yet over then rank at once.": (
        "Provvisorio: il tuo indirizzo e-mail non è verificato, quindi questo punteggio non è in classifica. Verificalo dal tuo profilo: i tuoi punteggi dei giorni non ancora finiti entreranno subito in classifica.",
        "Provisional: tu dirección de correo no está verificada, así que esta puntuación no entra en la clasificación. Verifícala desde tu perfil: tus puntuaciones de los días aún no terminados entrarán enseguida.",
    ),
    "Hello %(name)s,\n\nopen this link to verify the e-mail address of your Piramide account. Your scores rank on the boards once it is verified:": (
        "Ciao %(name)s,\n\napri questo link per verificare l'indirizzo e-mail del tuo account Piramide. I tuoi punteggi entrano in classifica quando è verificato:",
        "Hola %(name)s:\n\nabre este enlace para verificar la dirección de correo de tu cuenta de Piramide. Tus puntuaciones entran en las clasificaciones cuando esté verificada:",
    ),
    "The link works for %(days)s day, for this address only. If you did not ask, do nothing.": (
        ("Il link funziona per %(days)s giorno, solo per questo indirizzo. Se non l'hai chiesto tu, non fare nulla.", "Il link funziona per %(days)s giorni, solo per questo indirizzo. Se non l'hai chiesto tu, non fare nulla."),
        ("El enlace funciona durante %(days)s día, solo para esta dirección. Si no lo has pedido, no hagas nada.", "El enlace funciona durante %(days)s días, solo para esta dirección. Si no lo has pedido, no hagas nada."),
    ),
    "Piramide: verify your e-mail address": ("Piramide: verifica il tuo indirizzo e-mail", "Piramide: verifica tu dirección de correo"),
    "Verify your e-mail address": ("Verifica il tuo indirizzo e-mail", "Verifica tu dirección de correo"),
    "Verify this address": ("Verifica questo indirizzo", "Verificar esta dirección"),
    "verified": ("verificato", "verificada"),
    "not verified: your scores do not rank until it is": (
        "non verificato: i tuoi punteggi non entrano in classifica finché non lo è",
        "sin verificar: tus puntuaciones no entran en la clasificación hasta que lo esté",
    ),
    "none: a forgotten password cannot be recovered, and your scores do not rank": (
        "nessuno: una password dimenticata non si può recuperare, e i tuoi punteggi non entrano in classifica",
        "ninguno: una contraseña olvidada no se puede recuperar, y tus puntuaciones no entran en la clasificación",
    ),
    "Send the verification link again": ("Invia di nuovo il link di verifica", "Enviar de nuevo el enlace de verificación"),
    "Your account has no e-mail address to verify: add one first.": (
        "Il tuo account non ha un indirizzo e-mail da verificare: aggiungine uno prima.",
        "Tu cuenta no tiene una dirección de correo que verificar: añade una primero.",
    ),
    "We sent a verification link to %(email)s: open it to verify the address.": (
        "Abbiamo inviato un link di verifica a %(email)s: aprilo per verificare l'indirizzo.",
        "Hemos enviado un enlace de verificación a %(email)s: ábrelo para verificar la dirección.",
    ),
    "This verification link has expired: ask for a new one from your profile.": (
        "Questo link di verifica è scaduto: chiedine uno nuovo dal tuo profilo.",
        "Este enlace de verificación ha caducado: pide uno nuevo desde tu perfil.",
    ),
    "This link was sent to an address your account no longer has: ask for a new one from your profile.": (
        "Questo link è stato inviato a un indirizzo che il tuo account non ha più: chiedine uno nuovo dal tuo profilo.",
        "Este enlace se envió a una dirección que tu cuenta ya no tiene: pide uno nuevo desde tu perfil.",
    ),
    "This verification link is not valid.": ("Questo link di verifica non è valido.", "Este enlace de verificación no es válido."),
    "Too many verification e-mails asked for: try again in %(minutes)s minute.": (
        ("Troppe e-mail di verifica richieste: riprova tra %(minutes)s minuto.", "Troppe e-mail di verifica richieste: riprova tra %(minutes)s minuti."),
        ("Demasiados correos de verificación pedidos: vuelve a intentarlo en %(minutes)s minuto.", "Demasiados correos de verificación pedidos: vuelve a intentarlo en %(minutes)s minutos."),
    ),
    "Your e-mail address is already verified.": ("Il tuo indirizzo e-mail è già verificato.", "Tu dirección de correo ya está verificada."),
    "Your e-mail address is verified: your scores rank on the boards.": (
        "Il tuo indirizzo e-mail è verificato: i tuoi punteggi entrano in classifica.",
        "Tu dirección de correo está verificada: tus puntuaciones entran en las clasificaciones.",
    ),
    "A password reset link is sent here, and a link to verify it: your scores rank once it is verified. Leave it empty and a forgotten password cannot be recovered.": (
        "Qui arriva il link per reimpostare la password, e un link per verificare l'indirizzo: i tuoi punteggi entrano in classifica quando è verificato. Lascialo vuoto e una password dimenticata non si potrà recuperare.",
        "Aquí llega el enlace para restablecer la contraseña, y un enlace para verificar la dirección: tus puntuaciones entran en la clasificación cuando esté verificada. Déjalo vacío y una contraseña olvidada no se podrá recuperar.",
    ),
    "Your password": ("La tua password", "Tu contraseña"),
    "Delete your account": ("Elimina il tuo account", "Eliminar tu cuenta"),
    "Delete my account": ("Elimina il mio account", "Eliminar mi cuenta"),
    "Staff accounts cannot be deleted from here: ask another administrator.": (
        "Gli account dello staff non si eliminano da qui: chiedi a un altro amministratore.",
        "Las cuentas del personal no se eliminan desde aquí: pídeselo a otro administrador.",
    ),
    "The password is wrong: your account was not deleted.": (
        "La password è sbagliata: il tuo account non è stato eliminato.",
        "La contraseña no es correcta: tu cuenta no se ha eliminado.",
    ),
    "Your account is deleted. Your scores have left the boards.": (
        "Il tuo account è eliminato. I tuoi punteggi hanno lasciato le classifiche.",
        "Tu cuenta está eliminada. Tus puntuaciones han salido de las clasificaciones.",
    ),
    "Your scores leave every board, your games stay in the day's statistics with no name, and whom you follow and who follows you are forgotten. This cannot be undone.": (
        "I tuoi punteggi lasciano ogni classifica, le tue partite restano nelle statistiche del giorno senza nome, e chi segui e chi ti segue vengono dimenticati. Non si può annullare.",
        "Tus puntuaciones salen de todas las clasificaciones, tus partidas quedan en las estadísticas del día sin nombre, y a quién sigues y quién te sigue se olvidan. No se puede deshacer.",
    ),
    # the daily program: variant of the day, rules pages, calendar, streaks
    "Today's variant: %(label)s": ("Variante del giorno: %(label)s", "Variante del día: %(label)s"),
    "its rules": ("le regole", "sus reglas"),
    "the coming days": ("i prossimi giorni", "los próximos días"),
    "%(days)s day with every variant played": (
        ("%(days)s giorno con tutte le varianti giocate", "%(days)s giorni con tutte le varianti giocate"),
        ("%(days)s día con todas las variantes jugadas", "%(days)s días con todas las variantes jugadas"),
    ),
    "Variant of the day": ("Variante del giorno", "Variante del día"),
    "Rules": ("Regole", "Reglas"),
    "Rules: %(label)s": ("Regole: %(label)s", "Reglas: %(label)s"),
    "Rules of every variant": ("Le regole di ogni variante", "Las reglas de cada variante"),
    "days in a row with every variant played": (
        "giorni di fila con tutte le varianti giocate",
        "días seguidos con todas las variantes jugadas",
    ),
    "best run with every variant played": (
        "serie migliore con tutte le varianti giocate",
        "mejor racha con todas las variantes jugadas",
    ),
    "Streaks per variant": ("Serie per variante", "Rachas por variante"),
    "Streaks per variant, counted along each variant's own challenges": (
        "Serie per variante, contate sulle sfide di ciascuna variante",
        "Rachas por variante, contadas sobre los desafíos de cada variante",
    ),
    "played in a row": ("giocate di fila", "jugados seguidos"),
    "won in a row": ("vinte di fila", "ganados seguidos"),
    "best": ("migliore", "mejor"),
    "Challenges": ("Sfide", "Desafíos"),
    "The program of the coming days": ("Il programma dei prossimi giorni", "El programa de los próximos días"),
    "Every day has the same challenges for everyone, and one more variant that changes from day to day. Each deal stays secret until its day is over; here is only what will be played.": (
        "Ogni giorno ha le stesse sfide per tutti, più una variante che cambia di giorno in giorno. Ogni smazzata resta segreta finché la sua giornata non è finita; qui c'è solo che cosa si giocherà.",
        "Cada día tiene los mismos desafíos para todos, y una variante más que cambia de un día a otro. Cada reparto sigue secreto hasta que termina su día; aquí solo está qué se jugará.",
    ),
    "The layout: the pyramid, with face-down cards shaded; below it the stock, then the cards in play beside it (S: from the stock, W: the top of the waste).": (
        "La disposizione: la piramide, con le carte coperte in grigio; sotto, il tallone e accanto le carte in gioco (S: dal tallone, W: la cima degli scarti).",
        "La disposición: la pirámide, con las cartas boca abajo sombreadas; debajo, el mazo y a su lado las cartas en juego (S: del mazo, W: la carta de arriba del descarte).",
    ),
    "One 52-card deck. Ace counts 1, number cards their number, jack 11, queen 12, king 13.": (
        "Un mazzo da 52 carte. L'asso vale 1, le carte numerate il loro numero, il fante 11, la donna 12, il re 13.",
        "Una baraja de 52 cartas. El as vale 1, las cartas numeradas su número, la jota 11, la reina 12, el rey 13.",
    ),
    "Two 52-card decks shuffled together: 104 cards, every card twice. Ace counts 1, number cards their number, jack 11, queen 12, king 13.": (
        "Due mazzi da 52 carte mescolati insieme: 104 carte, ogni carta due volte. L'asso vale 1, le carte numerate il loro numero, il fante 11, la donna 12, il re 13.",
        "Dos barajas de 52 cartas mezcladas: 104 cartas, cada carta dos veces. El as vale 1, las cartas numeradas su número, la jota 11, la reina 12, el rey 13.",
    ),
    "A 40-card deck: a 52-card deck without the 8s, 9s and 10s. Ace counts 1, number cards their number, jack 8, queen 9, king 10.": (
        "Un mazzo da 40 carte: un mazzo da 52 senza gli 8, i 9 e i 10. L'asso vale 1, le carte numerate il loro numero, il fante 8, la donna 9, il re 10.",
        "Una baraja de 40 cartas: una de 52 sin los 8, los 9 y los 10. El as vale 1, las cartas numeradas su número, la jota 8, la reina 9, el rey 10.",
    ),
    "A deck of %(cards)s cards.": ("Un mazzo di %(cards)s carte.", "Una baraja de %(cards)s cartas."),
    "The pyramid has %(rows)s rows, %(pyramid)s cards; the other %(stock)s cards make the stock.": (
        "La piramide ha %(rows)s file, %(pyramid)s carte; le altre %(stock)s carte formano il tallone.",
        "La pirámide tiene %(rows)s filas, %(pyramid)s cartas; las otras %(stock)s cartas forman el mazo.",
    ),
    "Every row but the base is dealt face down; a card turns face up when the two cards resting on it are gone.": (
        "Tutte le file tranne la base sono distribuite coperte; una carta si scopre quando le due carte che la coprono sono state tolte.",
        "Todas las filas menos la base se reparten boca abajo; una carta se descubre cuando las dos cartas que la cubren se han retirado.",
    ),
    "Every card of the pyramid lies face up.": (
        "Tutte le carte della piramide sono scoperte.",
        "Todas las cartas de la pirámide están boca arriba.",
    ),
    "A pyramid card is free once the two cards resting on it are gone. Two cards in play whose values make %(sum)s leave together; a king counts %(sum)s and leaves alone.": (
        "Una carta della piramide è libera quando le due carte che la coprono sono state tolte. Due carte in gioco i cui valori fanno %(sum)s si tolgono insieme; il re vale %(sum)s e si toglie da solo.",
        "Una carta de la pirámide está libre cuando las dos cartas que la cubren se han retirado. Dos cartas en juego cuyos valores suman %(sum)s se retiran juntas; el rey vale %(sum)s y se retira solo.",
    ),
    "The top card of the stock lies face up and is in play, and so is the top card of the waste; the two may pair with each other. A draw moves the stock's top card onto the waste.": (
        "La prima carta del tallone è scoperta e in gioco, come la carta in cima agli scarti; le due possono fare coppia tra loro. Pescare sposta la prima carta del tallone sugli scarti.",
        "La carta de arriba del mazo está boca arriba y en juego, igual que la carta de arriba del descarte; las dos pueden emparejarse entre sí. Robar pasa la carta de arriba del mazo al descarte.",
    ),
    "You draw one card at a time: the card just drawn is in play, and so is the top card of the waste; the two may pair with each other. At the next draw an unused card goes onto the waste.": (
        "Si pesca una carta alla volta: la carta appena pescata è in gioco, come la carta in cima agli scarti; le due possono fare coppia tra loro. Alla pescata successiva una carta non usata va sugli scarti.",
        "Se roba una carta cada vez: la carta recién robada está en juego, igual que la carta de arriba del descarte; las dos pueden emparejarse entre sí. En el siguiente robo, una carta no usada pasa al descarte.",
    ),
    "Drawn cards go straight onto the waste, one at a time; only the top card of the waste plays with the pyramid.": (
        "Le carte pescate vanno subito sugli scarti, una alla volta; solo la carta in cima agli scarti gioca con la piramide.",
        "Las cartas robadas van directamente al descarte, una a una; solo la carta de arriba del descarte juega con la pirámide.",
    ),
    "You may draw only when nothing can be removed: no king and no pair among the cards in play.": (
        "Si può pescare solo quando non si può togliere nulla: nessun re e nessuna coppia tra le carte in gioco.",
        "Solo se puede robar cuando no se puede retirar nada: ningún rey y ninguna pareja entre las cartas en juego.",
    ),
    "%(passes)s passes through the stock: once it is empty, the waste may be turned back into it, in the same order, %(recycles)s time.": (
        (
            "%(passes)s passaggi nel tallone: quando è vuoto, gli scarti si possono rigirare a formarlo di nuovo, nello stesso ordine, %(recycles)s volta.",
            "%(passes)s passaggi nel tallone: quando è vuoto, gli scarti si possono rigirare a formarlo di nuovo, nello stesso ordine, %(recycles)s volte.",
        ),
        (
            "%(passes)s pasadas por el mazo: cuando se vacía, el descarte puede volver a formarlo, en el mismo orden, %(recycles)s vez.",
            "%(passes)s pasadas por el mazo: cuando se vacía, el descarte puede volver a formarlo, en el mismo orden, %(recycles)s veces.",
        ),
    ),
    "One pass through the stock: the waste is never turned back.": (
        "Un solo passaggio nel tallone: gli scarti non si rigirano mai.",
        "Una sola pasada por el mazo: el descarte nunca vuelve al mazo.",
    ),
    "The two top cards of the waste may also pair with each other: the second pairs with the top card only.": (
        "Anche le due carte in cima agli scarti possono fare coppia tra loro: la seconda fa coppia solo con quella in cima.",
        "También las dos cartas de arriba del descarte pueden emparejarse entre sí: la segunda solo se empareja con la de arriba.",
    ),
    "House rule: two cards among the top %(reach)s of the waste may pair with each other; the cards between them stay.": (
        "Regola di casa: due carte tra le prime %(reach)s degli scarti possono fare coppia tra loro; le carte in mezzo restano.",
        "Regla de la casa: dos cartas entre las %(reach)s de arriba del descarte pueden emparejarse entre sí; las cartas de en medio se quedan.",
    ),
    "House rule: when the card just drawn is the last of its rank and the other three lie free in the pyramid, you may put it back into the stock, under one or more of its cards.": (
        "Regola di casa: quando la carta appena pescata è l'ultima del suo valore e le altre tre sono libere nella piramide, la si può rimettere nel tallone, sotto una o più delle sue carte.",
        "Regla de la casa: cuando la carta recién robada es la última de su valor y las otras tres están libres en la pirámide, se puede devolver al mazo, debajo de una o más de sus cartas.",
    ),
    "House rule: once a game, if the first three cards drawn made no pair, you may put them back under the stock.": (
        "Regola di casa: una volta a partita, se le prime tre carte pescate non hanno fatto coppia, le si può rimettere sotto il tallone.",
        "Regla de la casa: una vez por partida, si las tres primeras cartas robadas no han hecho pareja, se pueden devolver debajo del mazo.",
    ),
    "You win the moment the pyramid is empty, whatever is left in the stock and the waste.": (
        "Si vince nell'istante in cui la piramide è vuota, qualunque cosa resti nel tallone e negli scarti.",
        "Se gana en el momento en que la pirámide queda vacía, quede lo que quede en el mazo y en el descarte.",
    ),
    "The game is lost when no move is left, or as soon as no free pyramid card is a king or can pair with a free card or with any card still to come.": (
        "La partita è persa quando non resta nessuna mossa, oppure appena nessuna carta libera della piramide è un re o può fare coppia con una carta libera o con una carta ancora da venire.",
        "La partida se pierde cuando no queda ninguna jugada, o en cuanto ninguna carta libre de la pirámide es un rey o puede emparejarse con una carta libre o con alguna carta aún por venir.",
    ),
    "The game is lost only when no move at all is left. Once the pyramid can no longer be cleared you are told so, and may end the game there or play on for the points still to be had.": (
        "La partita è persa solo quando non resta più nessuna mossa. Appena la piramide non si può più sgombrare te lo diciamo, e puoi chiudere lì la partita o continuare per i punti ancora da prendere.",
        "La partida se pierde solo cuando no queda ninguna jugada. En cuanto la pirámide ya no puede vaciarse te lo decimos, y puedes terminar la partida ahí o seguir por los puntos que aún quedan.",
    ),
    "Once the stock is empty, the waste may be turned back into it, in the same order, as often as you like, provided a card was removed since the last time (or since the start): a pass that removed nothing would only deal the same cards again.": (
        "Quando il tallone è vuoto, gli scarti si possono rigirare a formarlo di nuovo, nello stesso ordine, tutte le volte che vuoi, purché dall'ultima volta (o dall'inizio) si sia tolta una carta: un passaggio che non ha tolto nulla darebbe solo di nuovo le stesse carte.",
        "Cuando el mazo se vacía, el descarte puede volver a formarlo, en el mismo orden, tantas veces como quieras, siempre que desde la última vez (o desde el principio) se haya retirado una carta: una pasada que no retiró nada solo repartiría de nuevo las mismas cartas.",
    ),
    "The game is lost once the stock is through and no card can be removed, now or in another pass through the stock. Once the pyramid can no longer be cleared you are told so, and may end the game there or play on for the points still to be had.": (
        "La partita è persa quando il tallone è finito e nessuna carta si può togliere, né ora né in un altro passaggio nel tallone. Appena la piramide non si può più sgombrare te lo diciamo, e puoi chiudere lì la partita o continuare per i punti ancora da prendere.",
        "La partida se pierde cuando se ha repasado el mazo y no se puede retirar ninguna carta, ni ahora ni en otra pasada por el mazo. En cuanto la pirámide ya no puede vaciarse te lo decimos, y puedes terminar la partida ahí o seguir por los puntos que aún quedan.",
    ),
    "this pass through the stock removed no card: another would deal the same cards again": (
        "questo passaggio nel tallone non ha tolto nessuna carta: un altro darebbe di nuovo le stesse carte",
        "esta pasada por el mazo no retiró ninguna carta: otra repartiría de nuevo las mismas cartas",
    ),
    "the stock is empty and this pass through the stock removed no card: another would deal the same cards again": (
        "il tallone è vuoto e questo passaggio non ha tolto nessuna carta: un altro darebbe di nuovo le stesse carte",
        "el mazo está vacío y esta pasada no retiró ninguna carta: otra repartiría de nuevo las mismas cartas",
    ),
    "the game is over: no card can be removed, and this pass through the stock removed none": (
        "la partita è finita: nessuna carta si può togliere, e questo passaggio nel tallone non ne ha tolta nessuna",
        "la partida ha terminado: no se puede retirar ninguna carta, y esta pasada por el mazo no retiró ninguna",
    ),
    "the game is over: the stock is through and no pair is left between the free cards and the deck": (
        "la partita è finita: il tallone è finito e non restano coppie tra le carte libere e il mazzo",
        "la partida ha terminado: se ha repasado el mazo y no quedan parejas posibles entre las cartas descubiertas y el mazo",
    ),
    "Points: +%(pair)s for each pair, +%(king)s for each king": (
        "Punti: +%(pair)s per ogni coppia, +%(king)s per ogni re",
        "Puntos: +%(pair)s por cada pareja, +%(king)s por cada rey",
    ),
    "Points: +%(pair)s for each pair, +%(king)s for each king, +%(row)s for each row of the pyramid emptied": (
        "Punti: +%(pair)s per ogni coppia, +%(king)s per ogni re, +%(row)s per ogni fila della piramide svuotata",
        "Puntos: +%(pair)s por cada pareja, +%(king)s por cada rey, +%(row)s por cada fila de la pirámide vaciada",
    ),
    "%(scoring)s, −%(recycle)s each time the waste is turned back": (
        "%(scoring)s, −%(recycle)s ogni volta che si rigirano gli scarti",
        "%(scoring)s, −%(recycle)s cada vez que el descarte vuelve al mazo",
    ),
    "%(scoring)s. You may give up at any time and keep the points made.": (
        "%(scoring)s. Puoi abbandonare in qualsiasi momento e tenere i punti fatti.",
        "%(scoring)s. Puedes abandonar en cualquier momento y conservar los puntos hechos.",
    ),
}

ENTRY = re.compile(r'((?:#.*\n)*)msgid ((?:".*"\n)+)(?:msgid_plural ((?:".*"\n)+))?((?:msgstr.*\n(?:".*"\n)*)+)')


def _text(block: str) -> str:
    return "".join(re.findall(r'"(.*)"', block)).encode().decode("unicode_escape").encode("latin-1").decode("utf-8")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def fill(path: Path, index: int) -> list[str]:
    source = path.read_text(encoding="utf-8")
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        comments, msgid, plural, _old = match.groups()
        key = _text(msgid)
        if not key:
            return match.group(0)
        # a guess of msgmerge's (fuzzy, with the msgid it guessed from) is replaced by the table's text
        comments = re.sub(r"^#\| .*\n", "", comments, flags=re.MULTILINE)
        comments = re.sub(r"^#, fuzzy(?:\n|, )", lambda m: "" if m.group(0).endswith("\n") else "#, ", comments, flags=re.MULTILINE)
        if key not in T:
            missing.append(key)
            return match.group(0)
        value = T[key][index]
        head = f"{comments}msgid {msgid}"
        if plural:
            one, many = value
            return f"{head}msgid_plural {plural}msgstr[0] {_quote(one)}\nmsgstr[1] {_quote(many)}\n"
        return f"{head}msgstr {_quote(value)}\n"

    filled = ENTRY.sub(replace, source)
    filled = re.sub(r'"Plural-Forms: [^"]*"', lambda _m: '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"', filled)
    filled = filled.replace("#, fuzzy\nmsgid \"\"", "msgid \"\"")
    path.write_text(filled, encoding="utf-8")
    return missing


def main() -> int:
    missing: set[str] = set()
    for language, index in (("it", 0), ("es", 1)):
        for domain in ("django", "djangojs"):
            missing.update(fill(HERE / language / "LC_MESSAGES" / f"{domain}.po", index))
    for po in sorted(HERE.glob("*/LC_MESSAGES/*.po")):
        subprocess.run(["msgfmt", "--check-format", "-o", str(po.with_suffix(".mo")), str(po)], check=True)
    for key in sorted(missing):
        print("untranslated:", key)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

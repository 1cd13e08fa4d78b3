// The card faces for the widget: service/cards/widget.py fills in @DATA@ and joins the lines.
var Cards=(function(D){
var F=' font-weight="700" font-family="'+D.font+'" text-anchor="middle" fill="';
function card(f){return '<rect x="1" y="1" width="98" height="138" rx="8" fill="'+f+'" stroke="'+D.edge+'" stroke-width="1.5"/>'}
var C=card(D.face);
function esc(t){return t.replace(/&/g,"&amp;").replace(/</g,"&lt;").replace(/>/g,"&gt;").replace(/"/g,"&quot;")}
function svg(b,w,l){var h='<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 140" width="'+w+'" height="'+Math.floor((w*7+2)/5)+'"';
if(!l)return h+' aria-hidden="true">'+b+'</svg>';l=esc(l);
return h+' role="img" aria-label="'+l+'"><title>'+l+'</title>'+b+'</svg>'}
function g(x,y,k,f){return '<g transform="translate('+x+' '+y+') scale('+k+')'+(f?' rotate(180)':'')+'">'}
function pip(s,x,y,k,f){return g(x,y,k,f)+'<path d="'+s.body+'" fill="'+s.fill+'" stroke="'+s.ink+'" stroke-width="9" paint-order="stroke"/>'
+(s.detail?'<path d="'+s.detail+'" fill="none" stroke="'+s.line+'" stroke-width="5"/>':'')+'</g>'}
function turn(c){return c+'<g transform="rotate(180 50 70)">'+c+'</g>'}
function joker(){var j=D.joker,t='';for(var i=0;i<5;i++)t+='<tspan x="12" y="'+(20+12*i)+'">'+'JOKER'[i]+'</tspan>';
return C+g(50,70,0.62)+'<path d="'+D.emblems.star+'" fill="'+j.fill+'" stroke="'+j.ink+'" stroke-width="5"/></g>'
+turn('<text font-size="12"'+F+j.ink+'">'+t+'</text>')}
function body(r,s,d){var b=C,f=D.figures[d][r],x=D.index[d][r]||r;
if(f)b+='<rect x="24" y="14" width="52" height="112" rx="5" fill="'+s.fill+'" fill-opacity="0.14" stroke="'+s.ink+'" stroke-width="1.5"/>'
+g(50,46,0.55)+'<path d="'+D.emblems[f]+'" fill="'+s.fill+'" stroke="'+s.ink+'" stroke-width="4"/></g>'+pip(s,50,96,0.36);
else if(r=='A')b+=pip(s,50,70,0.56);
else D.pips[r][1].forEach(function(p){b+=pip(s,p[0],p[1],D.pips[r][0],p[1]>70)});
return b+turn('<text x="13" y="29" font-size="27"'+F+s.ink+'"'+(x.length>1?' textLength="22" lengthAdjust="spacingAndGlyphs"':'')+'>'+x+'</text>'+pip(s,13,44,0.17))}
return{face:function(c,d,w,l){var s=D.suits[d][c.slice(-1)];
return svg(c=='JK'&&d=='french'?joker():body(c.slice(0,-1),s,d),w,l)},
back:function(d,w,l){var k=D.backs[d],b=card(k[0])+'<svg x="8" y="8" width="84" height="124"><path d="'+D.lattice+'" stroke="'+k[1]
+'" stroke-width="1.5"/></svg><rect x="8" y="8" width="84" height="124" rx="4" fill="none" stroke="#f4e6c0" stroke-width="2"/><ellipse cx="50" cy="70" rx="24" ry="26" fill="'
+D.face+'" stroke="#f4e6c0" stroke-width="2"/>';
D.medallion.forEach(function(p,i){b+=pip(D.suits[d][D.order[d][i]],p[0],p[1],0.13)});return svg(b,w,l)}}
})(@DATA@);
